package model

import "fmt"

// newKeeper builds the keeper test controller.
func newKeeper(c Client) Reconciler {
	return ReconcilerFunc(func(req Request) (Result, error) {
		set, err := c.Get("Set", req.Namespace, req.Name)
		if IsNotFound(err) {
			return Result{}, nil
		}
		if err != nil {
			return Result{}, err
		}
		pods, err := c.List("Pod", ListOptions{Namespace: set.Namespace, Owner: set.UID})
		if err != nil {
			return Result{}, err
		}
		want := map[string]bool{}
		for i := range set.Spec.Int("replicas") {
			want[fmt.Sprintf("%s-%d", set.Name, i)] = true
		}
		have := map[string]bool{}
		for _, p := range pods {
			have[p.Name] = true
		}
		for i := range set.Spec.Int("replicas") {
			name := fmt.Sprintf("%s-%d", set.Name, i)
			if have[name] {
				continue
			}
			pod := &Object{Kind: "Pod", Namespace: set.Namespace, Name: name, OwnerReferences: []OwnerReference{NewOwnerReference(set)}}
			if err := c.Create(pod); err != nil {
				return Result{}, err
			}
		}
		for _, p := range pods {
			if !want[p.Name] {
				if err := c.Delete(p.Ref(), DeleteOptions{UID: p.UID}); err != nil && !IsNotFound(err) {
					return Result{}, err
				}
			}
		}
		return Result{}, nil
	})
}

// keeperGoal wants every Set to own spec.replicas pods.
func keeperGoal(s State) []Unmet {
	var out []Unmet
	for _, set := range s.List("Set", ListOptions{}) {
		if n := s.Count("Pod", ListOptions{Namespace: set.Namespace, Owner: set.UID}); int64(n) != set.Spec.Int("replicas") {
			out = append(out, Unmet{Object: set.Ref(), Message: fmt.Sprintf("wants %d pods, has %d", set.Spec.Int("replicas"), n)})
		}
	}
	return out
}

// newEcho builds the echo test controller.
func newEcho(c Client) Reconciler {
	return ReconcilerFunc(func(req Request) (Result, error) {
		o, err := c.Get("Echo", req.Namespace, req.Name)
		if IsNotFound(err) {
			return Result{}, nil
		}
		if err != nil {
			return Result{}, err
		}
		if o.Status.Str("value") == o.Spec.Str("value") {
			return Result{}, nil
		}
		if err := o.SetField("status.value", o.Spec.Str("value")); err != nil {
			return Result{}, err
		}
		return Result{}, c.UpdateStatus(o)
	})
}
