package controllerruntime_test

//lint:file-ignore SA1019 these tests cover client.Apply, the deprecated server-side apply that user code still calls

import (
	"fmt"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// applyOp is one write of an apply script: an apply of a Deployment by
// one of three managers, or an update of its replicas by a fourth, after
// the clock has moved on or not.
type applyOp struct {
	manager  int
	replicas int // 0 leaves the field out of the configuration
	image    string
	force    bool
	update   bool
	later    bool
}

// runApplies runs ops on a fresh manager and says, for each, what a
// client saw: the error, or the stored object's version, replicas, image
// and managed fields with their times.
func runApplies(t *rapid.T, ops []applyOp) []string {
	m := newManager(t)
	c := m.OutsideClient("user")
	managers := []string{"gitops", "hpa", "ci"}
	now := model.Time(0)
	var seen []string
	for _, op := range ops {
		if op.later {
			now++
			m.Cluster().At(now, "test", "later", func() {})
			m.Cluster().Do(model.Action{Kind: model.ActTimer})
		}
		var err error
		if op.update {
			var d appsv1.Deployment
			if err = c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &d); err == nil {
				d.Spec.Replicas = new(int32(op.replicas + 5))
				err = c.Update(ctx, &d, client.FieldOwner("kubectl-scale"))
			}
		} else {
			var replicas *int32
			if op.replicas > 0 {
				replicas = new(int32(op.replicas))
			}
			opts := []client.PatchOption{client.FieldOwner(managers[op.manager])}
			if op.force {
				opts = append(opts, client.ForceOwnership)
			}
			err = c.Patch(ctx, applied(replicas, op.image), client.Apply, opts...)
		}
		var got appsv1.Deployment
		if gerr := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &got); gerr != nil {
			seen = append(seen, fmt.Sprintf("%v; %v", err, gerr))
			continue
		}
		fields := ""
		for _, f := range got.ManagedFields {
			fields += fmt.Sprintf(" %s/%s@%s %s", f.Manager, f.Operation, f.Time, f.FieldsV1.Raw)
		}
		seen = append(seen, fmt.Sprintf("%v; rv %s replicas %d image %s;%s", err, got.ResourceVersion, *got.Spec.Replicas, got.Spec.Template.Spec.Containers[0].Image, fields))
	}
	return seen
}

// TestTheApplyMemoGivesWhatTheFieldManagerGives: scripts of applies by
// several managers, forced or not, updates by another writer and moves of
// the clock give, with the apply memo, what a client sees without it,
// write for write (errors, versions, contents, managed fields and their
// times); run again on a fresh manager, as the next run of a search is,
// the memo answers applies.
func TestTheApplyMemoGivesWhatTheFieldManagerGives(t *testing.T) {
	before := crt.ApplyMemoHits()
	rapid.Check(t, func(t *rapid.T) {
		ops := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) applyOp {
			return applyOp{
				manager:  rapid.IntRange(0, 2).Draw(t, "manager"),
				replicas: rapid.IntRange(0, 3).Draw(t, "replicas"),
				image:    rapid.SampledFrom([]string{"app:v1", "app:v2"}).Draw(t, "image"),
				force:    rapid.Bool().Draw(t, "force"),
				update:   rapid.IntRange(0, 5).Draw(t, "update") == 0,
				later:    rapid.Bool().Draw(t, "later"),
			}
		}), 1, 8).Draw(t, "ops")
		restore := crt.SetApplyMemo(false)
		plain := runApplies(t, ops)
		restore()
		require.Equal(t, plain, runApplies(t, ops), "the memo's first run")
		require.Equal(t, plain, runApplies(t, ops), "the memo's second run")
	})
	require.Positive(t, crt.ApplyMemoHits()-before, "the memo answered no apply")
}
