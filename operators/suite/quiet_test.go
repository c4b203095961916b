package suite

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"pgregory.net/rapid"
)

// A restriction drops what the generator drew at its path, with "[*]"
// for any index, and sets a pinned subtree below every index drawn, or a
// scalar at its path; fields outside it stay as drawn.
func TestRestrictPinsAndDrops(t *testing.T) {
	drawn := model.NewFields(model.Values{
		"groups[0].template.name": "x", "groups[0].template.image": "y", "groups[0].replicas": int64(2),
		"groups[1].template{}": true, "groups[1].replicas": int64(1),
		"service.ports[0].port": int64(0), "servicex": "kept", "size": int64(9),
	})
	pinned := model.NewFields(model.Values{"name": "ray", "image": "ray:2"})
	gen := Restrict(rapid.Just(drawn), []Restriction{
		{Path: "groups[*].template", Value: pinned},
		{Path: "service"},
		{Path: "size", Value: int64(3)},
	})
	got := gen.Example(0)
	want := model.NewFields(model.Values{
		"groups[0].template.name": "ray", "groups[0].template.image": "ray:2", "groups[0].replicas": int64(2),
		"groups[1].template.name": "ray", "groups[1].template.image": "ray:2", "groups[1].replicas": int64(1),
		"servicex": "kept", "size": int64(3),
	})
	if !got.Equal(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if sub := Sub(want, "groups[1].template"); !sub.Equal(pinned) {
		t.Fatalf("Sub: got %v, want %v", sub, pinned)
	}
}
