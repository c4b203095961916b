package convert

// SpecIsBody reports whether the model Spec of kind holds the fields of
// its spec ("replicas" for a Deployment's spec.replicas), as for every kind
// whose body outside metadata and status is exactly a spec; otherwise it
// holds the whole body outside metadata and status ("data.key" for a
// ConfigMap, "spec.replicas" for a custom resource served unstructured).
func (c *Converter) SpecIsBody(kind string) bool { return c.hoist[c.kinds[kind]] }
