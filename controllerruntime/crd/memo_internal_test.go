package crd

import (
	"reflect"
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSameObjectSeesEveryField: two objects that differ in any one
// exported field are different writes to the memo, so that a field added
// to model.Object cannot make it hand out another write's admission.
func TestSameObjectSeesEveryField(t *testing.T) {
	base := func() *model.Object {
		return &model.Object{Kind: "Batch", Namespace: "default", Name: "b"}
	}
	assert.True(t, SameObject(base(), base()))
	assert.True(t, SameObject(nil, nil))
	assert.False(t, SameObject(nil, base()))
	typ := reflect.TypeFor[model.Object]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			o := base()
			v := reflect.ValueOf(o).Elem().Field(i)
			require.True(t, setOther(v), "no different value for a field of type %s: teach setOther one", f.Type)
			assert.False(t, SameObject(base(), o))
			assert.False(t, SameObject(o, base()))
		})
	}
}

// setOther sets v to a value other than the one base gives it.
func setOther(v reflect.Value) bool {
	switch v.Interface().(type) {
	case model.Fields:
		v.Set(reflect.ValueOf(model.NewFields(model.Values{"replicas": int64(1)})))
		return true
	case *model.Time:
		t := model.Time(1)
		v.Set(reflect.ValueOf(&t))
		return true
	case []string:
		v.Set(reflect.ValueOf([]string{"x"}))
		return true
	case model.Labels:
		v.Set(reflect.ValueOf(model.NewLabels(map[string]string{"x": "y"})))
		return true
	case []model.OwnerReference:
		v.Set(reflect.ValueOf([]model.OwnerReference{{Kind: "App", Name: "a"}}))
		return true
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Int, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	default:
		return false
	}
	return true
}
