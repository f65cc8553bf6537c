//go:build ignore

// Genicons draws the playground's PNG icons, the same shapes as icon.svg,
// at the sizes go-app asks for. Run it from web/ after changing icon.svg:
//
//	go run genicons.go
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
	"strconv"
)

// shape is a rounded rectangle in icon.svg's 64x64 coordinates.
type shape struct {
	x, y, w, h, r float64
	c             color.NRGBA
}

var (
	ink   = color.NRGBA{0x0f, 0x1b, 0x24, 0xff}
	post  = color.NRGBA{0xe8, 0xee, 0xf2, 0xff}
	gate  = color.NRGBA{0xf2, 0xb3, 0x3d, 0xff}
	water = color.NRGBA{0x3f, 0xa7, 0xd6, 0xff}
)

var shapes = []shape{
	{0, 0, 64, 64, 14, ink},
	{10, 10, 6, 44, 2, post},
	{48, 10, 6, 44, 2, post},
	{16, 14, 32, 18, 2, gate},
	{16, 38, 32, 5, 2.5, water},
	{16, 47, 32, 5, 2.5, water},
}

func (s shape) contains(x, y float64) bool {
	if x < s.x || y < s.y || x > s.x+s.w || y > s.y+s.h {
		return false
	}
	cx := math.Max(s.x+s.r, math.Min(x, s.x+s.w-s.r))
	cy := math.Max(s.y+s.r, math.Min(y, s.y+s.h-s.r))
	return math.Hypot(x-cx, y-cy) <= s.r
}

func draw(size int) *image.NRGBA {
	const samples = 4 // per axis, for anti-aliasing
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	scale := 64 / float64(size)
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < samples; sy++ {
				for sx := 0; sx < samples; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/samples) * scale
					y := (float64(py) + (float64(sy)+0.5)/samples) * scale
					for i := len(shapes) - 1; i >= 0; i-- {
						if s := shapes[i]; s.contains(x, y) {
							r, g, b, a = r+float64(s.c.R), g+float64(s.c.G), b+float64(s.c.B), a+255
							break
						}
					}
				}
			}
			if a == 0 {
				continue
			}
			n := a / 255
			img.SetNRGBA(px, py, color.NRGBA{uint8(r / n), uint8(g / n), uint8(b / n), uint8(a / samples / samples)})
		}
	}
	return img
}

func main() {
	for _, size := range []int{192, 512} {
		f, err := os.Create("icon-" + strconv.Itoa(size) + ".png")
		if err != nil {
			log.Fatal(err)
		}
		enc := png.Encoder{CompressionLevel: png.BestCompression}
		if err := enc.Encode(f, draw(size)); err != nil {
			log.Fatal(err)
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}
