package output

import (
	"strconv"
	"strings"

	"github.com/tracecraft/tracecraft/host/internal/fault"
)

// JSON is the media type of the JSON answer.
const JSON = "application/json"

// Answer is how a request is answered: the JSON body, or the bare file with MediaType.
type Answer struct {
	// Format is the file's format.
	Format Format
	// Bare says the file itself is the body; otherwise it is the JSON answer.
	Bare bool
	// MediaType is the body's media type: JSON, or one of the format's MediaTypes.
	MediaType string
}

// acceptRange is one media range of an Accept header with its quality.
type acceptRange struct {
	typ, sub string
	q        float64
}

// parseAccept reads an Accept header (RFC 9110 section 12.5.1). Ranges it cannot read
// are left out; parameters other than q are ignored.
func parseAccept(h string) []acceptRange {
	var out []acceptRange
	for _, part := range strings.Split(h, ",") {
		params := strings.Split(part, ";")
		mt := strings.ToLower(strings.TrimSpace(params[0]))
		typ, sub, ok := strings.Cut(mt, "/")
		if !ok || typ == "" || sub == "" || (typ == "*" && sub != "*") {
			continue
		}
		r := acceptRange{typ: typ, sub: sub, q: 1}
		for _, p := range params[1:] {
			k, v, _ := strings.Cut(p, "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || q < 0 || q > 1 {
					q = 0
				}
				r.q = q
			}
		}
		out = append(out, r)
	}
	return out
}

// quality returns the quality the ranges give the media type mt: that of the most
// specific range that matches it, 0 when none does.
func quality(ranges []acceptRange, mt string) float64 {
	typ, sub, _ := strings.Cut(mt, "/")
	best, spec := 0.0, -1
	for _, r := range ranges {
		s := -1
		switch {
		case r.typ == typ && r.sub == sub:
			s = 2
		case r.typ == typ && r.sub == "*":
			s = 1
		case r.typ == "*":
			s = 0
		}
		if s > spec {
			best, spec = r.q, s
		}
	}
	return best
}

// Offers returns, in order of preference, the media types a request with options o may
// be answered with: JSON, then the bare file of the format the settings name, or of every
// format (SVG first) when they name none.
func Offers(o Options) []string {
	offers := []string{JSON}
	formats := Formats
	if o.FormatGiven {
		formats = []Format{o.Format}
	}
	for _, f := range formats {
		offers = append(offers, MediaTypes[f]...)
	}
	return offers
}

// FormatOf returns the format whose media types include mt.
func FormatOf(mt string) (Format, bool) {
	for _, f := range Formats {
		if contains(MediaTypes[f], mt) {
			return f, true
		}
	}
	return "", false
}

// Negotiate chooses the answer from the Accept header and the output options: the
// offer (see Offers) with the highest quality, the earlier offer on a tie, so that no
// Accept, */* or an Accept that lists JSON as high as the file gives the JSON answer.
// When no offer has a quality above 0, it returns a fault.NotAcceptable error whose
// details list the offers.
func Negotiate(accept string, o Options) (Answer, error) {
	offers := Offers(o)
	if strings.TrimSpace(accept) == "" {
		return Answer{Format: o.Format, MediaType: JSON}, nil
	}
	ranges := parseAccept(accept)
	best, bestQ := "", 0.0
	for _, mt := range offers {
		if q := quality(ranges, mt); q > bestQ {
			best, bestQ = mt, q
		}
	}
	if best == "" {
		list := make([]any, len(offers))
		for i, mt := range offers {
			list[i] = mt
		}
		msg := "the Accept header allows none of the types this request can be answered with: send Accept with one of " + strings.Join(offers, ", ")
		if o.FormatGiven {
			msg += " (output.format is " + strconv.Quote(string(o.Format)) + "; leave it out to choose the format by Accept)"
		}
		return Answer{}, &fault.Error{Code: fault.NotAcceptable, Message: msg,
			Details: []fault.Detail{{Field: "Accept", Message: "must allow one of " + strings.Join(offers, ", "), Value: list}}}
	}
	if best == JSON {
		return Answer{Format: o.Format, MediaType: JSON}, nil
	}
	f, _ := FormatOf(best)
	return Answer{Format: f, Bare: true, MediaType: best}, nil
}
