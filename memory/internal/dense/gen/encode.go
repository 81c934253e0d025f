package main

import (
	"encoding/binary"
	"math"
)

// encode lays the terms out in the table format of ../README.md: the
// header, the term records, each term's frequency and quantisation scale,
// the int8 vectors, and the text blob.
func encode(terms []term) []byte {
	dim := 0
	if len(terms) > 0 {
		dim = len(terms[0].vec)
	}
	blobLen := 0
	for _, t := range terms {
		blobLen += len(t.text)
	}
	n := len(terms)
	out := make([]byte, 0, 20+n*(4+4+4+dim)+blobLen)
	out = append(out, "ENGVEC1\n"...)
	out = binary.LittleEndian.AppendUint32(out, uint32(dim))
	out = binary.LittleEndian.AppendUint32(out, uint32(n))
	out = binary.LittleEndian.AppendUint32(out, uint32(blobLen))
	off := 0
	for _, t := range terms {
		out = binary.LittleEndian.AppendUint32(out, uint32(off)<<8|uint32(len(t.text)))
		off += len(t.text)
	}
	for _, t := range terms {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(float32(t.p)))
	}
	scales := make([]float32, n)
	for i, t := range terms {
		m := float32(0)
		for _, x := range t.vec {
			m = max(m, abs(x))
		}
		scales[i] = m / 127
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(scales[i]))
	}
	for i, t := range terms {
		for _, x := range t.vec {
			out = append(out, byte(int8(math.Round(float64(x/scales[i])))))
		}
	}
	for _, t := range terms {
		out = append(out, t.text...)
	}
	return out
}

func abs(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
