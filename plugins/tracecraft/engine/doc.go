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
// The gap filler is drawn as fill, not as a stroke: a shape whose edge borders an opaque
// shape painted above it reaches gapFillerWidth under that shape, its edge there moved
// by fit.Path.Parallel, so the seam
// renderers leave along a shared edge shows the lower shape, not the background. No
// edge moves where it is seen, and one fill colour paints each shape and its filler: an
// editor that recolours the fill (of the path, or of its colour group) leaves no outline
// of the old colour.
//
// gapFiller "auto" is on unless the image is fine detail: shapes thinner than the gap
// filler (mean thickness, twice the area over the perimeter) border more than a tenth
// of all boundary length, so the filler would show through most of the drawing. In auto
// mode it is 1 px wide unless gapFillerWidth is given: that hides the seams completely.
package engine
