// Package cache is a small operator of a custom kind, Cache{replicas,
// image, tier?}, that owns one pod per replica: the subject of the input
// examples (docs/design.md, "State-transition inputs"). Its controller
// comes fixed, or with one of three input bugs of the kinds Acto reports,
// each found by the goal-free differential oracle with no goal written:
// the controller declares none.
package cache

import (
	"slices"
	"strings"

	"github.com/converge-sim/converge/draw"
	"github.com/converge-sim/converge/model"
	"pgregory.net/rapid"
)

// Kind is the custom resource's kind; PodKind the kind of its members.
const (
	Kind    = "Cache"
	PodKind = "Pod"
)

// Images are the images a Cache may run; Tiers the values of its optional
// tier.
var (
	Images = []string{"v1", "v2"}
	Tiers  = []string{"gold", "silver"}
)

// MaxReplicas bounds spec.replicas in the specs Spec draws.
const MaxReplicas = 3

// New returns the Cache namespace/name with replicas members running
// image v1 and no tier.
func New(namespace, name string, replicas int64) *model.Object {
	return &model.Object{Kind: Kind, Namespace: namespace, Name: name, Spec: model.NewFields(model.Values{"replicas": replicas, "image": Images[0]})}
}

// Spec draws a whole Cache spec: replicas in [0, MaxReplicas], an image,
// and a tier or none. It shrinks toward no replicas, image v1 and no tier.
func Spec() *rapid.Generator[model.Fields] {
	return rapid.Custom(func(t *rapid.T) model.Fields {
		v := model.Values{
			"replicas": draw.Int64Range(0, MaxReplicas).Draw(t, "replicas"),
			"image":    Images[draw.IntRange(0, len(Images)-1).Draw(t, "image")],
		}
		if tier := draw.IntRange(0, len(Tiers)).Draw(t, "tier"); tier > 0 {
			v["tier"] = Tiers[tier-1]
		}
		return model.NewFields(v)
	})
}

// Options chooses the controller's bugs; the zero value is the fixed
// controller.
type Options struct {
	// Name is the controller's name, default "cache".
	Name string
	// StaleOnScaleDown: the controller rolls an image out only while
	// status.image, the image it last rolled out, differs from
	// spec.image, and a reconcile that scales down records the rollout
	// without updating the members that survive it. A transition that
	// lowers replicas and changes the image at once leaves the survivors
	// on the old image for good.
	StaleOnScaleDown bool
	// KeepsRemovedTier: the controller sets a member's tier when the
	// Cache has one but never removes it, so removing the optional field
	// leaves the stale value in every member.
	KeepsRemovedTier bool
	// DividesByReplicas: the controller records in status.memberMemory
	// each member's share of its tier's memory, dividing by
	// spec.replicas, so a Cache with a tier and no replicas panics it.
	DividesByReplicas bool
}

// TierMemory is the memory a tier shares among the members, for
// Options.DividesByReplicas.
const TierMemory = 1024

// Controller returns the Cache controller with opts' bugs.
func Controller(opts Options) model.Controller {
	if opts.Name == "" {
		opts.Name = "cache"
	}
	return model.Controller{
		Name: opts.Name,
		For:  Kind,
		Owns: []string{PodKind},
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.StatelessFunc(func(req model.Request) (model.Result, error) {
				return reconcile(c, opts, req)
			})
		},
	}
}

// ImagePath is where a member pod's spec names its image, as in a real
// PodSpec: its one container's.
const ImagePath = "containers[0].image"

// member returns a new member of the Cache: a pod with a generated name
// running its image and tier.
func member(cache *model.Object) *model.Object {
	spec := model.NewFields(model.Values{"containers[0].name": "cache", ImagePath: cache.Spec.Str("image")})
	if tier, ok := cache.Spec.Get("tier"); ok {
		spec.Set("tier", tier)
	}
	return &model.Object{
		Kind:            PodKind,
		Namespace:       cache.Namespace,
		GenerateName:    cache.Name + "-",
		Labels:          model.NewLabels(map[string]string{"cache": cache.Name}),
		OwnerReferences: []model.OwnerReference{model.NewOwnerReference(cache)},
		Spec:            spec,
	}
}

func reconcile(c model.Client, opts Options, req model.Request) (model.Result, error) {
	cache, err := c.Get(Kind, req.Namespace, req.Name)
	if model.IsNotFound(err) {
		return model.Result{}, nil // the garbage collector removes its members
	}
	if err != nil {
		return model.Result{}, err
	}
	if cache.Deleting() {
		return model.Result{}, nil
	}
	owned, err := c.PeekList(PodKind, model.ListOptions{Namespace: cache.Namespace, Owner: cache.UID})
	if err != nil {
		return model.Result{}, err
	}
	var pods []*model.Object
	for _, p := range owned {
		if p.IsControlledBy(cache) && !p.Deleting() {
			pods = append(pods, p)
		}
	}
	slices.SortFunc(pods, func(a, b *model.Object) int { return strings.Compare(a.Name, b.Name) })

	want := int(cache.Spec.Int("replicas"))
	for n := len(pods); n < want; n++ {
		if err := c.Create(member(cache)); err != nil {
			return model.Result{}, err
		}
	}
	scaledDown := len(pods) > want
	for _, p := range pods[min(want, len(pods)):] {
		if err := c.Delete(p.Ref(), model.DeleteOptions{UID: p.UID}); err != nil && !model.IsNotFound(err) {
			return model.Result{}, err
		}
	}
	pods = pods[:min(want, len(pods))]

	image := cache.Spec.Str("image")
	rollout := true
	if opts.StaleOnScaleDown {
		rollout = cache.Status.Str("image") != image && !scaledDown
	}
	tier, hasTier := cache.Spec.Get("tier")
	for _, p := range pods {
		spec := p.Spec
		if rollout {
			spec.Set(ImagePath, image)
		}
		switch {
		case hasTier:
			spec.Set("tier", tier)
		case !opts.KeepsRemovedTier:
			spec.Delete("tier")
		}
		if spec.Equal(p.Spec) {
			continue
		}
		up := p.DeepCopy()
		up.Spec = spec
		if err := c.Update(up); err != nil {
			return model.Result{}, err
		}
	}

	status := model.NewFields(model.Values{"replicas": int64(want), "image": image})
	if opts.DividesByReplicas && hasTier {
		status.Set("memberMemory", TierMemory/cache.Spec.Int("replicas"))
	}
	if !cache.Status.Equal(status) {
		cache.Status = status
		if err := c.UpdateStatus(cache); err != nil {
			return model.Result{}, err
		}
	}
	return model.Result{}, nil
}
