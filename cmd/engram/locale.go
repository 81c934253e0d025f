package main

// The C locale with an encoding reads as English before the toolkit's
// packages start (see the package's doc).
import _ "engram/cmd/internal/locale"
