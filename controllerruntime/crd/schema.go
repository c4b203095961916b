package crd

import structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"

// Schema returns the version's structural schema, its defaults pruned as
// the API server prunes them: the list types, map keys and value formats
// the differential oracle compares by (controllerruntime's Semantics). The
// caller must not modify it.
func (v *Version) Schema() *structuralschema.Structural { return v.structural }
