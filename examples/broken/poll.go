package broken

import "github.com/converge-sim/converge/model"

// The polling pair: a Backup controller that creates a Backup's result, a
// ConfigMap "<backup>-result", and then polls its cache inside the
// reconcile (Client.Wait, as wait.PollUntilContextTimeout does through the
// adapter) until the result shows up, to mark the Backup Done. It does not
// watch the results' events (it maps them to no key), as operators that
// poll instead of watching do: its poll is the only thing that notices.
const (
	BackupKind = "Backup"
	// PollTicks is how long a reconcile polls for its result: one tick at
	// a time, twice.
	PollTicks = 2
)

// NewBackup returns a Backup that is not done yet.
func NewBackup(namespace, name string) *model.Object {
	return &model.Object{Kind: BackupKind, Namespace: namespace, Name: name}
}

// polling builds the Backup controller named name, with resync, whose
// reconcile returns giveUp when its poll runs out.
func polling(name string, giveUp model.Result) model.Controller {
	return model.Controller{
		Name: name, For: BackupKind, ResyncPeriod: 20,
		Watches: []model.Watch{{Kind: "ConfigMap", Map: func(model.Client, *model.Object) []model.Request { return nil }}},
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.StatelessFunc(func(req model.Request) (model.Result, error) {
				b, err := c.Get(BackupKind, req.Namespace, req.Name)
				if model.IsNotFound(err) {
					return model.Result{}, nil
				}
				if err != nil || b.Status.Str("phase") == "Done" {
					return model.Result{}, err
				}
				result := req.Name + "-result"
				if _, err := c.Peek("ConfigMap", req.Namespace, result); model.IsNotFound(err) {
					cm := &model.Object{Kind: "ConfigMap", Namespace: req.Namespace, Name: result, OwnerReferences: []model.OwnerReference{model.NewOwnerReference(b)}}
					if err := c.Create(cm); err != nil && !model.IsAlreadyExists(err) {
						return model.Result{}, err
					}
				}
				for range PollTicks {
					if err := c.Wait(1); err != nil {
						return model.Result{}, err
					}
					// A result of a Backup deleted and created again under
					// the same name is not this one's: the garbage
					// collector removes it, and the next reconcile creates
					// this one's.
					if cm, err := c.Peek("ConfigMap", req.Namespace, result); err == nil && cm.IsControlledBy(b) {
						if err := b.SetField("status.phase", "Done"); err != nil {
							return model.Result{}, err
						}
						return model.Result{}, c.UpdateStatus(b)
					}
				}
				return giveUp, nil
			})
		},
		Goal: BackupsDone,
	}
}

// PollsThenGivesUp is the Backup controller that, when its poll runs out
// before its cache shows the result, returns nil and forgets the Backup:
// "it will show up". Nothing requeues it, since it maps the results' events
// to no key, and it waits for a resync. Exposed by the faults that hold its
// own create back from its cache longer than its poll (delay, stale);
// without faults the poll sees the create at its first tick.
func PollsThenGivesUp() model.Controller {
	return polling("polls-then-gives-up", model.Result{})
}

// PollsThenRequeues is PollsThenGivesUp fixed: when its poll runs out it
// asks to be reconciled again a few ticks later, and so marks the Backup
// Done without a resync.
func PollsThenRequeues() model.Controller {
	return polling("polls-then-requeues", model.Result{RequeueAfter: PollTicks})
}

// BackupsDone is the pair's goal: every Backup is Done and its result
// exists.
func BackupsDone(s model.State) []model.Unmet {
	var unmet []model.Unmet
	for _, b := range s.List(BackupKind, model.ListOptions{}) {
		switch {
		case b.Status.Str("phase") != "Done":
			unmet = append(unmet, model.Unmet{Object: b.Ref(), Message: "not done"})
		case s.Get("ConfigMap", b.Namespace, b.Name+"-result") == nil:
			unmet = append(unmet, model.Unmet{Object: b.Ref(), Message: "done, without its result"})
		}
	}
	return unmet
}
