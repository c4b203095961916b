package properties

// FaultPerTree returns opts exploring each fault in trees of its own, as
// the explorer once did: the reference tests compare shared fault trees
// with.
func FaultPerTree(opts ExploreOptions) ExploreOptions {
	opts.faultPerTree = true
	return opts
}

// WithoutMemo returns opts making every run of a search, even one that
// repeats a run that passed.
func WithoutMemo(opts SearchOptions) SearchOptions {
	opts.noMemo = true
	return opts
}
