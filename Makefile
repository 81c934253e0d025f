# Engram — `make run` to use it, `make test` to check it. See README.md.

SHELL := /bin/bash
GO ?= go
TAGS := migrated_fynedo
FYNE_CLI_VERSION := v1.7.4
BIN := $(CURDIR)/bin
FYNE := $(BIN)/fyne
export LANG := C.UTF-8
export LC_ALL := C.UTF-8

APT_PACKAGES := gcc pkg-config libgl-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev \
	libxi-dev libxxf86vm-dev xvfb xauth xdotool imagemagick fonts-noto-cjk
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CORE_PKGS := ./agent/... ./memory/... ./cmd/engramctl/...

.PHONY: deps build run test stress bench eval package install uninstall clean

## deps: install what is missing (apt packages Fyne needs, Xvfb for headless tests, the fyne CLI in ./bin)
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@[ -x $(FYNE) ] || { echo "installing fyne CLI $(FYNE_CLI_VERSION) into ./bin"; GOBIN=$(BIN) $(GO) install fyne.io/tools/cmd/fyne@$(FYNE_CLI_VERSION); }

## build: build/engram (the desktop app) and build/engramctl (pure Go CLI)
build:
	$(GO) build -tags $(TAGS) -o build/engram ./cmd/engram
	CGO_ENABLED=0 $(GO) build -o build/engramctl ./cmd/engramctl

## run: install what is missing, build, and open the app
run: deps build
	./build/engram

## test: vet, race tests of everything, and the core packages again without cgo (stress tests cut short)
test: deps
	$(GO) vet -tags $(TAGS) ./...
	$(GO) test -race -short -tags $(TAGS) ./...
	CGO_ENABLED=0 $(GO) vet $(CORE_PKGS)
	CGO_ENABLED=0 $(GO) build $(CORE_PKGS)
	CGO_ENABLED=0 $(GO) test -short $(CORE_PKGS)

## stress: the multi-process, crash and concurrency tests in full (what -short cuts down or skips)
STRESS := TwoProcesses|CrashKill|WriteTooLarge|Concurrent|LoseNothing|IncrementalEqualsRebuilt
stress:
	$(GO) test -race -count=1 -run '$(STRESS)' $(CORE_PKGS)

## bench: the Go benchmarks of the engine and the agent (5 runs each; compare medians)
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./memory/ ./agent/

## eval: recall quality on the public benchmarks in ../shared/eval, scored by its score.py
EVAL ?= ../shared/eval
eval:
	CGO_ENABLED=0 $(GO) build -o build/engramctl ./cmd/engramctl
	python3 $(EVAL)/score.py --bin "./build/engramctl bench-recall" $(EVAL)/locomo $(EVAL)/madial-zh $(EVAL)/madial-en $(EVAL)/madial-zh2en $(EVAL)/madial-en2zh

## package: dist/Engram.tar.xz (binary, .desktop entry, icon, and a Makefile to install it); FyneApp.toml unchanged
package: deps
	mkdir -p build dist
	$(GO) build -tags $(TAGS) -ldflags "-s -w" -o build/package/engram ./cmd/engram
	cp FyneApp.toml build/FyneApp.toml.orig
	$(FYNE) package -os linux --release --executable build/package/engram --name Engram --icon assets/icon.png; \
		status=$$?; cp build/FyneApp.toml.orig FyneApp.toml; exit $$status
	mv -f Engram.tar.xz dist/Engram.tar.xz
	@echo "dist/Engram.tar.xz: $$(tar -tJf dist/Engram.tar.xz | tr '\n' ' ')"

## install: per-user install of the packaged app (~/.local), so it shows in the app menu
install: package
	rm -rf build/install && mkdir -p build/install
	tar -xJf dist/Engram.tar.xz -C build/install
	$(MAKE) -C build/install/engram user-install
	install -Dm644 assets/icon.png $(HOME)/.local/share/icons/hicolor/512x512/apps/dev.engram.app.png
	install -Dm644 packaging/dev.engram.app.metainfo.xml $(HOME)/.local/share/metainfo/dev.engram.app.metainfo.xml
	@if command -v update-desktop-database >/dev/null; then update-desktop-database $(HOME)/.local/share/applications; fi
	@echo "installed: $(HOME)/.local/bin/engram and the Engram menu entry"

## uninstall: remove the per-user install (memories and chats are kept)
uninstall:
	rm -f $(HOME)/.local/share/applications/dev.engram.app.desktop $(HOME)/.local/bin/engram \
		$(HOME)/.local/share/icons/dev.engram.app.png \
		$(HOME)/.local/share/icons/hicolor/512x512/apps/dev.engram.app.png \
		$(HOME)/.local/share/metainfo/dev.engram.app.metainfo.xml
	@if command -v update-desktop-database >/dev/null; then update-desktop-database $(HOME)/.local/share/applications; fi

clean:
	rm -rf build dist

## e2e: the real build/engram under Xvfb against a fake endpoint: types with xdotool, checks memory.json,
## saves screenshots in build/e2e/ and logs the cold start (median of 5, exec to a drawn window)
.PHONY: e2e
e2e: deps build
	$(GO) test -tags '$(TAGS) e2e' -count=1 -v -run 'TestE2E|TestColdStart' ./cmd/engram/
