package raster

import (
	"bytes"
	"encoding/binary"
)

// The TIFF structure that EXIF metadata uses (and TIFF files are), read just far enough
// to find tags of the first IFD. Every offset is checked against the data: EXIF blocks in
// the wild are often damaged, and a damaged one means "no orientation", never an error.

const (
	tagImageWidth      = 256
	tagImageLength     = 257
	tagBitsPerSample   = 258
	tagCompression     = 259
	tagPhotometric     = 262
	tagOrientation     = 274
	tagSamplesPerPixel = 277
)

// ifdEntry is one 12-byte entry of an IFD.
type ifdEntry struct {
	tag, typ uint16
	count    uint32
	value    []byte // the 4-byte value-or-offset field
}

// tiffIFD is the first IFD of a TIFF structure.
type tiffIFD struct {
	data    []byte
	order   binary.ByteOrder
	entries []ifdEntry
}

// maxIFDEntries bounds the work spent on a damaged entry count.
const maxIFDEntries = 1024

// readIFD0 parses the header and the first IFD of the TIFF structure b. ok is false when
// b is not one or the IFD lies outside b; entries that run past the end are dropped.
func readIFD0(b []byte) (ifd tiffIFD, ok bool) {
	if len(b) < 8 {
		return ifd, false
	}
	switch string(b[:4]) {
	case "II*\x00":
		ifd.order = binary.LittleEndian
	case "MM\x00*":
		ifd.order = binary.BigEndian
	default:
		return ifd, false
	}
	ifd.data = b
	off := uint64(ifd.order.Uint32(b[4:8]))
	if off < 8 || off+2 > uint64(len(b)) {
		return ifd, false
	}
	n := int(ifd.order.Uint16(b[off:]))
	n = min(n, maxIFDEntries, (len(b)-int(off)-2)/12)
	ifd.entries = make([]ifdEntry, 0, n)
	for i := range n {
		e := b[int(off)+2+12*i:]
		ifd.entries = append(ifd.entries, ifdEntry{
			tag:   ifd.order.Uint16(e[0:2]),
			typ:   ifd.order.Uint16(e[2:4]),
			count: ifd.order.Uint32(e[4:8]),
			value: e[8:12],
		})
	}
	return ifd, true
}

// uint returns the first value of tag if it is a SHORT, LONG or BYTE, and whether it was
// found. For a SHORT or BYTE the value sits in the entry itself whatever the count,
// since it is the first of the values and they fill the field from its start.
func (ifd tiffIFD) uint(tag uint16) (uint32, bool) {
	for _, e := range ifd.entries {
		if e.tag != tag || e.count == 0 {
			continue
		}
		switch e.typ {
		case 1: // BYTE
			if e.count <= 4 {
				return uint32(e.value[0]), true
			}
			if off := uint64(ifd.order.Uint32(e.value)); off < uint64(len(ifd.data)) {
				return uint32(ifd.data[off]), true
			}
		case 3: // SHORT
			if e.count <= 2 {
				return uint32(ifd.order.Uint16(e.value)), true
			}
			if off := uint64(ifd.order.Uint32(e.value)); off+2 <= uint64(len(ifd.data)) {
				return uint32(ifd.order.Uint16(ifd.data[off:])), true
			}
		case 4: // LONG
			if e.count == 1 {
				return ifd.order.Uint32(e.value), true
			}
			if off := uint64(ifd.order.Uint32(e.value)); off+4 <= uint64(len(ifd.data)) {
				return ifd.order.Uint32(ifd.data[off:]), true
			}
		}
		return 0, false
	}
	return 0, false
}

// orientation returns the IFD's Orientation tag, or 1 when it is absent or not 1-8.
func (ifd tiffIFD) orientation() int {
	if v, ok := ifd.uint(tagOrientation); ok && v >= 1 && v <= 8 {
		return int(v)
	}
	return 1
}

// exifOrientation returns the orientation recorded in an EXIF block: a TIFF structure,
// optionally behind the "Exif\0\0" prefix JPEG's APP1 uses (and some WebP and PNG writers
// copy). It returns 1 when there is none or the block cannot be read.
func exifOrientation(b []byte) int {
	if bytes.HasPrefix(b, []byte("Exif\x00")) && len(b) >= 6 {
		b = b[6:]
	}
	ifd, ok := readIFD0(b)
	if !ok {
		return 1
	}
	return ifd.orientation()
}

// jpegOrientation walks a JPEG's marker segments up to the first scan and returns the
// orientation in its first EXIF APP1 segment, or 1.
func jpegOrientation(data []byte) int {
	i := 2 // after SOI
	for i+4 <= len(data) {
		if data[i] != 0xff {
			return 1
		}
		m := data[i+1]
		switch {
		case m == 0xff: // fill byte before a marker
			i++
			continue
		case m == 0x01 || m == 0xd8 || m >= 0xd0 && m <= 0xd7: // markers without a length
			i += 2
			continue
		case m == 0xda || m == 0xd9: // start of scan, end of image: no EXIF before them
			return 1
		}
		n := int(data[i+2])<<8 | int(data[i+3])
		if n < 2 || i+2+n > len(data) {
			return 1
		}
		if seg := data[i+4 : i+2+n]; m == 0xe1 && bytes.HasPrefix(seg, []byte("Exif\x00")) {
			return exifOrientation(seg)
		}
		i += 2 + n
	}
	return 1
}
