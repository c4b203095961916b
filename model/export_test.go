package model

// FreshFingerprint is Fingerprint computed without the cluster's cache of
// object and history hashes, for tests that check the cache.
func FreshFingerprint(c *Cluster) uint64 {
	saved := c.fpCache
	c.fpCache = &fingerprintCache{objects: map[*Object]uint64{}}
	defer func() { c.fpCache = saved }()
	return c.Fingerprint()
}
