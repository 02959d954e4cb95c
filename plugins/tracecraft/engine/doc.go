// Package engine is the tracecraft engine's adapter to the sdk: it reads the parameters
// of spec section 2.5 and runs the pipeline.
//
//  1. segment: the palette (median cut in Oklab, at most maxColors colours; alpha below
//     one half is transparent), the regions (4-connected, those below minRegion merged
//     into their most similar neighbour) and the planar map of their shared edges.
//  2. refine: every edge placed with sub-pixel accuracy from the anti-aliasing, fitted
//     once with lines and cubics within tolerance, rendered in Go and corrected where
//     the render differs from the input (one pass up to 4 megapixels).
//  3. svgout: the document in the requested draw style, stacking and grouping. Every
//     shape is painted in its palette colour, so the output holds at most maxColors
//     colours.
//
// gapFiller "auto" is on unless the image is fine detail: shapes thinner than the gap
// filler stroke (mean thickness, twice the area over the perimeter) border more than a
// tenth of all boundary length, so the stroke would thicken most of the drawing. In
// auto mode the stroke is 1 px wide unless gapFillerWidth is given: that hides the
// seams completely, and the edges move by half the width into the shape above so the
// stroke does not fatten anything.
package engine
