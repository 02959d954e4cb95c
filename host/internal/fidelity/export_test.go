package fidelity

// SetBandPixels sets the band size for a test and returns what restores it.
func SetBandPixels(n int) func() {
	old := bandPixels
	bandPixels = n
	return func() { bandPixels = old }
}
