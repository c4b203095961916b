package properties

// FaultPerTree returns opts exploring each fault in trees of its own, as
// the explorer once did: the reference tests compare shared fault trees
// with.
func FaultPerTree(opts ExploreOptions) ExploreOptions {
	opts.faultPerTree = true
	return opts
}
