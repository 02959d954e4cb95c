package openapi

import (
	"fmt"

	"github.com/tracecraft/tracecraft/host/internal/output"
)

// outputSchemas adds the schemas of the settings' output object.
func outputSchemas(out obj) {
	formats := make([]string, len(output.Formats))
	for i, f := range output.Formats {
		formats[i] = string(f)
	}
	out["OutputSize"] = obj{
		"type": "object",
		"description": "The output's size: a width and/or a height in unit; with one side, the other keeps the image's aspect. " +
			"SVG: width and height in that unit on the root, the viewBox unchanged. PDF and EPS: the page size. " +
			"DXF: coordinates scaled to that unit and $INSUNITS. PNG: that many pixels (physical units at dpi), " +
			fmt.Sprintf("at most %d pixels in all.", output.MaxPNGPixels),
		"minProperties": 1,
		"properties": obj{
			"width":  obj{"type": "number", "exclusiveMinimum": 0, "maximum": output.MaxSide, "description": "The width in unit."},
			"height": obj{"type": "number", "exclusiveMinimum": 0, "maximum": output.MaxSide, "description": "The height in unit."},
			"unit":   obj{"type": "string", "enum": output.Units, "default": "px"},
			"dpi": obj{"type": "number", "minimum": output.MinDPI, "maximum": output.MaxDPI, "default": output.DefaultDPI,
				"description": "Pixels per inch: converts a size in px to a page size, and a physical size to PNG pixels."},
		},
		"anyOf":                []any{obj{"required": []string{"width"}}, obj{"required": []string{"height"}}},
		"additionalProperties": false,
	}
	out["Output"] = obj{
		"type": "object",
		"description": "The answer's file. The format may also be chosen by Accept (see POST /api/vectorize); when format is " +
			"given, Accept chooses between the JSON answer and that file only.",
		"properties": obj{
			"format": obj{"type": "string", "enum": formats, "default": string(output.SVG),
				"description": "svg, pdf (vector, PDF 1.4), eps (vector, EPSF-3.0), dxf (R12 ASCII, one layer per colour) or png."},
			"size": ref("schemas", "OutputSize"),
			"quality": obj{"type": "boolean", "default": false,
				"description": "Adds the trace's quality score (SSIM and PSNR of the SVG rendered at the image's size against the " +
					"image, both over white) to the answer: quality and timings.qualityMs in JSON, the X-Tracecraft-Quality header " +
					"with a bare file. It decodes the image and renders the SVG once more."},
		},
		"additionalProperties": false,
	}
}

// outputContent returns the 200 answer's content: the JSON answer and each format's
// bare file.
func outputContent() obj {
	c := obj{"application/json": obj{"schema": ref("schemas", "VectorizeResult")}}
	for _, f := range output.Formats {
		for _, mt := range output.MediaTypes[f] {
			schema := obj{"type": "string"}
			if f != output.SVG {
				schema["format"] = "binary"
			}
			c[mt] = obj{"schema": schema}
		}
	}
	return c
}

// resultFileProps are the JSON answer's fields that carry the output file.
func resultFileProps() obj {
	str := obj{"type": "string"}
	return obj{
		"format":    obj{"type": "string", "description": "The output format (output.format, or the one Accept chose)."},
		"mediaType": str,
		"fileName":  obj{"type": "string", "description": "The file's name, as Content-Disposition gives it with a bare answer."},
		"fileSize":  obj{"type": "integer", "minimum": 0, "description": "The file's size in bytes."},
		"file":      obj{"type": "string", "contentEncoding": "base64", "description": "Formats other than svg: the file in base64 (svg stays in svg)."},
	}
}
