// Deepcopy functions in the shape controller-gen generates them, written
// out here so that the example builds without the generator.

package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopyInto copies the receiver into out.
func (in *KVStoreStatus) DeepCopyInto(out *KVStoreStatus) {
	*out = *in
	if in.Applied != nil {
		out.Applied = new(KVStoreSpec)
		*out.Applied = *in.Applied
	}
}

// DeepCopyInto copies the receiver into out.
func (in *KVStore) DeepCopyInto(out *KVStore) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = in.Spec
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a deep copy of the receiver.
func (in *KVStore) DeepCopy() *KVStore {
	if in == nil {
		return nil
	}
	out := new(KVStore)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy of the receiver as a runtime.Object.
func (in *KVStore) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies the receiver into out.
func (in *KVStoreList) DeepCopyInto(out *KVStoreList) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]KVStore, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a deep copy of the receiver.
func (in *KVStoreList) DeepCopy() *KVStoreList {
	if in == nil {
		return nil
	}
	out := new(KVStoreList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy of the receiver as a runtime.Object.
func (in *KVStoreList) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}
