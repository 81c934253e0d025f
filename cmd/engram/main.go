package main

import (
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
)

func main() {
	a := app.NewWithID("dev.engram.app")
	w := a.NewWindow("Engram")
	w.SetContent(widget.NewLabel("x"))
	w.ShowAndRun()
}
