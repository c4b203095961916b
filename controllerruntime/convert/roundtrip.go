package convert

import (
	"errors"
	"math"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/converge-sim/converge/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// The answer to a write is the stored version decoded, and most of what a
// write stores is what the writer sent: a status update stores the status
// it was given, an update the spec, unless admission changed them. The
// typed form of such a part is already at hand, in the object the writer
// sent; only its decoding is to be worked out. A round trip does that
// without the model fields: built once per part type from the rules the
// encoding and decoding plans follow (JSON names, omitempty, omitzero,
// inlining, nulls, the types that convert themselves), it walks the sent
// typed value and makes the value that decoding its encoding gives, in
// one pass and with none of Unflatten's maps: an empty list that
// omitempty leaves out comes back nil, a null list element zero, a
// timestamp at second precision in the local zone, a custom type through
// its own decoder. FromModelWritten uses it for a part whose stored
// fields equal the ones the write sent (docs/design.md, "The written
// version without a decode"); a type or a value it cannot vouch for
// (floats, interfaces, an inlined pointer, a custom type whose
// unstructured form is not a string, integer or boolean, a time outside
// the years 0 to 9999) is decoded as before. TestRoundTripIsTheDecode
// checks it against the decode on random values of many types.

// errDecline marks a value a round trip does not vouch for: the part is
// decoded from its fields instead.
var errDecline = errors.New("the round trip declines this value")

// roundTrip sets dv, a zero value of v's type, to what the decoding plan
// makes of v's encoding, and reports whether that encoding is non-null;
// for a null one it writes nothing, and dv stays zero (as the decode
// leaves an absent field, a null list element, or a map entry the
// encoding drops). On an error dv may be partly written.
type roundTrip func(v, dv reflect.Value) (bool, error)

// rtPlan is the round trip of one Go type, set once built (a recursive
// type refers to its own plan).
type rtPlan struct{ rt roundTrip }

// rtBuilder builds the round trips of the types one part type reaches.
type rtBuilder struct {
	types map[reflect.Type]*rtPlan
	// names lists struct members as the encoding and decoding plans do.
	names planBuilder
	// dec gives the decoders of the types that convert themselves.
	dec *decodeBuilder
}

// roundTripOf returns the round trip of a part type (a struct that does
// not convert itself), or nil when it has none.
func roundTripOf(t reflect.Type, dec *decodeBuilder) *rtPlan {
	if t.Kind() != reflect.Struct || converts(t) {
		return nil
	}
	b := rtBuilder{types: map[reflect.Type]*rtPlan{}, names: planBuilder{namesOnly: true}, dec: dec}
	p, err := b.plan(t)
	if err != nil {
		return nil
	}
	return p
}

func (b *rtBuilder) plan(t reflect.Type) (*rtPlan, error) {
	if p, ok := b.types[t]; ok {
		return p, nil
	}
	p := &rtPlan{}
	b.types[t] = p
	rt, err := b.roundTrip(t)
	if err != nil {
		return nil, err
	}
	p.rt = rt
	return p, nil
}

var ptrTimeType = reflect.PointerTo(timeType)

func (b *rtBuilder) roundTrip(t reflect.Type) (roundTrip, error) {
	entry := value.TypeReflectEntryOf(t)
	if entry.CanConvertToUnstructured() {
		// The encoding plan takes a type that converts itself first
		// (plan.go's encoder), whatever its kind.
		switch t {
		case timeType:
			return roundTripTime, nil
		case ptrTimeType:
			return roundTripTimePointer, nil
		}
		return b.custom(t, entry)
	}
	switch t.Kind() {
	case reflect.String:
		return func(v, dv reflect.Value) (bool, error) {
			dv.SetString(v.String())
			return true, nil
		}, nil
	case reflect.Bool:
		return func(v, dv reflect.Value) (bool, error) {
			dv.SetBool(v.Bool())
			return true, nil
		}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v, dv reflect.Value) (bool, error) {
			dv.SetInt(v.Int())
			return true, nil
		}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(v, dv reflect.Value) (bool, error) {
			u := v.Uint()
			if u > math.MaxInt64 {
				return false, errDecline // the encoding fails
			}
			dv.SetUint(u)
			return true, nil
		}, nil
	}
	if entry.CanConvertFromUnstructured() {
		// Encoded as its kind, decoded by its own converter: left to
		// the decode.
		return nil, errUnplanned
	}
	switch t.Kind() {
	case reflect.Pointer:
		return b.pointer(t)
	case reflect.Map:
		return b.mapOf(t)
	case reflect.Slice:
		return b.slice(t)
	case reflect.Struct:
		return b.structOf(t)
	}
	// Floats (an integral one becomes an integer in the model),
	// interfaces, arrays and the rest: left to the decode.
	return nil, errUnplanned
}

// custom is the round trip of a type that converts itself: its
// unstructured form, a string, integer or boolean (which the model holds
// as it is), given to the type's decoder, as the decode gives it.
func (b *rtBuilder) custom(t reflect.Type, entry *value.TypeReflectCacheEntry) (roundTrip, error) {
	dec, err := b.dec.plan(t)
	if err != nil {
		return nil, err
	}
	return func(v, dv reflect.Value) (bool, error) {
		u, err := entry.ToUnstructured(v)
		if err != nil {
			return false, errDecline
		}
		switch u.(type) {
		case nil:
			return false, nil
		case string, bool, int64:
		default:
			return false, errDecline
		}
		if err := dec.dec(u, dv); err != nil {
			return false, errDecline
		}
		return true, nil
	}, nil
}

// Unix seconds of 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z: a
// timestamp's RFC 3339 form parses back only within those years.
const (
	firstRFC3339Second = -62167219200
	pastRFC3339Second  = 253402300800
)

// roundTripTime is the round trip of a metav1.Time, without its JSON: the
// encoding is the UTC RFC 3339 string of the instant's whole second (null
// for the zero time), and decoding parses it and takes the local zone,
// which is time.Unix of that second (TestTheTimesRoundTripAsTheyDecode).
func roundTripTime(v, dv reflect.Value) (bool, error) {
	var t metav1.Time
	if v.CanAddr() {
		t = *v.Addr().Interface().(*metav1.Time)
	} else {
		t = v.Interface().(metav1.Time)
	}
	return setRoundTripTime(t, dv.Addr().Interface().(*metav1.Time))
}

// setRoundTripTime sets *dst to what t's round trip gives; see
// roundTripTime.
func setRoundTripTime(t metav1.Time, dst *metav1.Time) (bool, error) {
	if t.IsZero() {
		return false, nil
	}
	s := t.Unix()
	if s < firstRFC3339Second || s >= pastRFC3339Second {
		return false, errDecline
	}
	dst.Time = time.Unix(s, 0)
	return true, nil
}

// roundTripTimePointer is the round trip of a *metav1.Time: nil, or a
// pointer to the zero time, encodes as null.
func roundTripTimePointer(v, dv reflect.Value) (bool, error) {
	if v.IsNil() {
		return false, nil
	}
	var t metav1.Time
	ok, err := setRoundTripTime(*v.Interface().(*metav1.Time), &t)
	if !ok || err != nil {
		return false, err
	}
	dv.Set(reflect.ValueOf(&t))
	return true, nil
}

// pointer: nil, or a pointer to a value that encodes as null, is null;
// otherwise the decode allocates the value and decodes it.
func (b *rtBuilder) pointer(t reflect.Type) (roundTrip, error) {
	elem, err := b.plan(t.Elem())
	if err != nil {
		return nil, err
	}
	return func(v, dv reflect.Value) (bool, error) {
		if v.IsNil() {
			return false, nil
		}
		p := reflect.New(t.Elem())
		ok, err := elem.rt(v.Elem(), p.Elem())
		if !ok || err != nil {
			return false, err
		}
		dv.Set(p)
		return true, nil
	}, nil
}

// mapOf: a nil map is null; any other is an object holding the entries
// whose values do not encode as null (the encoding leaves the others
// out), empty or not.
func (b *rtBuilder) mapOf(t reflect.Type) (roundTrip, error) {
	if t.Key().Kind() != reflect.String {
		return nil, errUnplanned
	}
	elem, err := b.plan(t.Elem())
	if err != nil {
		return nil, err
	}
	return func(v, dv reflect.Value) (bool, error) {
		if v.IsNil() {
			return false, nil
		}
		m := reflect.MakeMapWithSize(t, v.Len())
		for it := v.MapRange(); it.Next(); {
			x := reflect.New(t.Elem()).Elem()
			ok, err := elem.rt(it.Value(), x)
			if err != nil {
				return false, err
			}
			if ok {
				m.SetMapIndex(it.Key(), x)
			}
		}
		dv.Set(m)
		return true, nil
	}, nil
}

// slice: a nil slice is null; an empty one an empty list; bytes their
// base64 string, which decodes to a copy; an element that encodes as
// null is the zero element. Elements that come back as they are
// (identity) are copied at once.
func (b *rtBuilder) slice(t reflect.Type) (roundTrip, error) {
	if t.Elem().Kind() == reflect.Uint8 {
		return func(v, dv reflect.Value) (bool, error) {
			if v.IsNil() {
				return false, nil
			}
			s := reflect.MakeSlice(t, v.Len(), v.Len())
			reflect.Copy(s, v)
			dv.Set(s)
			return true, nil
		}, nil
	}
	elem, err := b.plan(t.Elem())
	if err != nil {
		return nil, err
	}
	whole := identity(t.Elem(), 0)
	return func(v, dv reflect.Value) (bool, error) {
		if v.IsNil() {
			return false, nil
		}
		n := v.Len()
		s := reflect.MakeSlice(t, n, n)
		if whole {
			reflect.Copy(s, v)
			dv.Set(s)
			return true, nil
		}
		for i := range n {
			if _, err := elem.rt(v.Index(i), s.Index(i)); err != nil {
				return false, err
			}
		}
		dv.Set(s)
		return true, nil
	}, nil
}

// rtMember is a struct member's round trip, or for an inlined struct its
// members'.
type rtMember struct {
	member
	plan   *rtPlan
	inline []rtMember
}

// structOf: a struct is never null; each member the encoding does not
// omit is round-tripped, and one that encodes as null stays zero. A
// struct whose members are all plain values (identity) is copied whole.
func (b *rtBuilder) structOf(t reflect.Type) (roundTrip, error) {
	members, err := b.names.members(t)
	if err != nil {
		return nil, err
	}
	ms, err := b.rtMembers(members, t)
	if err != nil {
		return nil, err
	}
	if identity(t, 0) {
		return func(v, dv reflect.Value) (bool, error) {
			dv.Set(v)
			return true, nil
		}, nil
	}
	return func(v, dv reflect.Value) (bool, error) {
		return true, roundTripMembers(ms, v, dv)
	}, nil
}

func (b *rtBuilder) rtMembers(members []member, t reflect.Type) ([]rtMember, error) {
	out := make([]rtMember, 0, len(members))
	for _, m := range members {
		ft := t.Field(m.index).Type
		rm := rtMember{member: m}
		if m.inline != nil {
			if m.ptr {
				// The decode allocates an inlined pointer whether or
				// not its fields are present.
				return nil, errUnplanned
			}
			inner, err := b.rtMembers(m.inline, ft)
			if err != nil {
				return nil, err
			}
			rm.inline = inner
		} else {
			p, err := b.plan(ft)
			if err != nil {
				return nil, err
			}
			rm.plan = p
		}
		out = append(out, rm)
	}
	return out, nil
}

func roundTripMembers(ms []rtMember, v, dv reflect.Value) error {
	for i := range ms {
		m := &ms[i]
		fv := v.Field(m.index)
		if m.omitted(fv) {
			continue
		}
		if m.inline != nil {
			if err := roundTripMembers(m.inline, fv, dv.Field(m.index)); err != nil {
				return err
			}
			continue
		}
		if _, err := m.plan.rt(fv, dv.Field(m.index)); err != nil {
			return err
		}
	}
	return nil
}

// identity reports whether every value of struct or scalar type t comes
// back from its round trip as it is: strings, booleans and signed
// integers that do not convert themselves, and structs of them whose
// every field is a member (none skipped by "-"), inlined or not. An
// omitted zero comes back zero.
func identity(t reflect.Type, depth int) bool {
	if depth > maxDepth || converts(t) {
		return false
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				return false
			}
			if name, _, _ := cutComma(f.Tag.Get("json")); name == "-" {
				return false
			}
			if !identity(f.Type, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// cutComma splits a JSON tag at its first comma.
func cutComma(tag string) (name, opts string, found bool) {
	for i := 0; i < len(tag); i++ {
		if tag[i] == ',' {
			return tag[:i], tag[i+1:], true
		}
	}
	return tag, "", false
}

// Sent is what a write sent: the typed object it converted and the model
// fields that conversion gave. ToModel encodes both parts; StatusToModel,
// for a write of the status subresource, the status alone, so its Spec is
// not the encoding of Object's spec (SpecSent false).
type Sent struct {
	// Object is the typed object the write converted. It must not be
	// modified between the conversion and FromModelWritten.
	Object client.Object
	// Spec and Status are the fields the conversion gave.
	Spec, Status model.Fields
	// SpecSent and StatusSent say which of them were encoded from
	// Object.
	SpecSent, StatusSent bool
}

// FromModelWritten is FromModelShared for mo, the version a write stored,
// given what the write sent: a part (spec or status) of mo whose fields
// equal the sent ones, because the server stored them as they came, is
// made by its round trip from the sent object's part instead of
// Unflatten and a decode, when the converter keeps no decode of that
// content already. The result is the same object FromModelShared gives
// (TestFromModelWrittenIsFromModel); sent is only read.
func (c *Converter) FromModelWritten(mo *model.Object, into client.Object, sent Sent) error {
	return c.fromModel(mo, into, true, &sent)
}

// of reports whether sent is given, and its object a non-nil one of
// into's type.
func (sent *Sent) of(into client.Object) bool {
	if sent == nil || sent.Object == nil || reflect.TypeOf(sent.Object) != reflect.TypeOf(into) {
		return false
	}
	v := reflect.ValueOf(sent.Object)
	return v.Kind() == reflect.Pointer && !v.IsNil()
}

// decodePartsSent is decodeParts for the version a write stored, with
// what it sent: a part stored as sent takes its round trip from the sent
// object's part. sent's object is of v's type.
func (p *objectParts) decodePartsSent(spec, status model.Fields, v reflect.Value, share bool, sent *Sent) error {
	sv := reflect.ValueOf(sent.Object).Elem()
	if sent.SpecSent && spec.Equal(sent.Spec) {
		if err := p.spec.decodeSent(spec, sv.Field(p.spec.index), v.Field(p.spec.index), share); err != nil {
			return err
		}
	} else if err := p.spec.decode(spec, v.Field(p.spec.index), share); err != nil {
		return err
	}
	if status.Len() == 0 {
		return nil
	}
	if p.status == nil {
		return errCannotDecode
	}
	if sent.StatusSent && status.Equal(sent.Status) {
		return p.status.decodeSent(status, sv.Field(p.status.index), v.Field(p.status.index), share)
	}
	return p.status.decode(status, v.Field(p.status.index), share)
}

// roundTrips counts the parts FromModelWritten made by a round trip, for
// tests that check it is taken (RoundTrips).
var roundTrips atomic.Int64

// RoundTrips returns how many parts FromModelWritten has made by a round
// trip in this process, for tests and measurements.
func RoundTrips() int64 { return roundTrips.Load() }

// decodeSent is decode for content f that encoding src, the part a write
// sent, gave: a kept decode of f when there is one, else src's round trip
// (kept as a decode would be), else a decode.
func (pp *partPlan) decodeSent(f model.Fields, src, dv reflect.Value, share bool) error {
	if f.Len() == 0 || pp.rt == nil {
		return pp.decode(f, dv, share)
	}
	if hit := pp.lookup(f); hit.IsValid() {
		if share {
			dv.Set(hit.Elem())
		} else {
			pp.copyInto(hit, dv.Addr())
		}
		return nil
	}
	if pp.copyInto == nil {
		if ok, err := pp.rt.rt(src, dv); !ok || err != nil {
			dv.SetZero()
			return pp.decode(f, dv, share)
		}
		roundTrips.Add(1)
		return nil
	}
	kept := reflect.New(dv.Type())
	if ok, err := pp.rt.rt(src, kept.Elem()); !ok || err != nil {
		return pp.decode(f, dv, share)
	}
	roundTrips.Add(1)
	pp.keep(f, kept)
	if share {
		dv.Set(kept.Elem())
	} else {
		pp.copyInto(kept, dv.Addr())
	}
	return nil
}
