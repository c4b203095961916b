package controllerruntime

// SetSharedDecode turns the memos' shared first decodes on or off and
// returns a func that restores the setting (TestSharedDecodesGiveTheSameTraces).
func SetSharedDecode(on bool) (restore func()) {
	was := sharedDecode
	sharedDecode = on
	return func() { sharedDecode = was }
}
