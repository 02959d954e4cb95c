// Package label is a union-find over provisional labels, for engines that label the
// connected components of an image (Hoshen-Kopelman: one raster pass gives each pixel a
// provisional label and joins the labels of neighbours found alike, a second numbers the
// components). The bundled engines share it; third-party engines may use it too.
//
// Labels are indices into a parent slice; a new label is its own parent. Union always
// links the larger root under the smaller, and Find only shortens paths, so a label's
// parent is never larger than the label: Number relies on that.
package label

// Find returns the root of x's set, halving the path on the way.
func Find(parent []int32, x int32) int32 {
	for parent[x] != x {
		parent[x] = parent[parent[x]]
		x = parent[x]
	}
	return x
}

// Union joins the sets of a and b under the smaller of their roots and returns that root.
func Union(parent []int32, a, b int32) int32 {
	ra, rb := Find(parent, a), Find(parent, b)
	switch {
	case ra < rb:
		parent[rb] = ra
		return ra
	case rb < ra:
		parent[ra] = rb
		return rb
	}
	return ra
}

// Number replaces each label's parent by its set's number and returns how many sets
// there are. Sets are numbered 0, 1, ... in increasing order of their roots, which are
// their smallest labels: in a raster-order labelling, the order of each component's
// first pixel.
func Number(parent []int32) int {
	n := int32(0)
	for i, r := range parent {
		if r == int32(i) {
			parent[i] = n
			n++
		} else {
			// r < i, so parent[r] already holds the number of r's root.
			parent[i] = parent[r]
		}
	}
	return int(n)
}
