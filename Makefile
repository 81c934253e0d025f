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
	libxi-dev libxxf86vm-dev xvfb xauth xdotool imagemagick fonts-noto-cjk \
	gcc-mingw-w64-x86-64 zip unzip file desktop-file-utils appstream
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CORE_PKGS := ./agent/... ./memory/... ./cmd/internal/... ./cmd/engramctl/...
# staticcheck runs through go run at this version, so nothing needs installing.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

# The version lives in one place, FyneApp.toml's [Details] Version; builds get it through -ldflags -X.
VERSION := $(shell sed -n 's/^[[:space:]]*Version[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' FyneApp.toml)
VERSION_FLAG := -X=engram/cmd/internal/version.version=$(VERSION)
LDFLAGS := -s -w $(VERSION_FLAG)
WIN_CC := x86_64-w64-mingw32-gcc

.PHONY: deps build run test stress bench bench-compare eval package package-linux package-deb package-windows package-check package-macos cross-check install uninstall clean

## deps: install what is missing (apt packages Fyne needs, Xvfb for headless tests, the fyne CLI in ./bin)
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@$(MAKE) -s $(FYNE)

# The fyne CLI, on its own so that package-macos can have it without apt.
$(FYNE):
	@echo "installing fyne CLI $(FYNE_CLI_VERSION) into ./bin"
	GOBIN=$(BIN) $(GO) install fyne.io/tools/cmd/fyne@$(FYNE_CLI_VERSION)

## build: build/engram (the desktop app) and build/engramctl (pure Go CLI)
build:
	$(GO) build -tags $(TAGS) -o build/engram ./cmd/engram
	CGO_ENABLED=0 $(GO) build -o build/engramctl ./cmd/engramctl

## run: install what is missing, build, and open the app
run: deps build
	./build/engram

## test: vet, staticcheck, race tests of everything (stress tests cut short), the core packages again without cgo, and their
## Windows and macOS builds
test: deps
	$(GO) vet -tags $(TAGS) ./...
	$(GO) run $(STATICCHECK) -tags $(TAGS) ./...
	$(GO) test -race -short -tags $(TAGS) ./...
	CGO_ENABLED=0 $(GO) vet $(CORE_PKGS)
	CGO_ENABLED=0 $(GO) build $(CORE_PKGS)
	CGO_ENABLED=0 $(GO) test -short $(CORE_PKGS)
	$(MAKE) cross-check

## stress: the multi-process, crash and concurrency tests in full (what -short cuts down or skips), the random
## sync histories, and the fuzz targets of the memory block marks (Defuse), the secret check, the fast decoder
## of memory.json (held to encoding/json) and engramctl's terminal filter
STRESS := TwoProcesses|CrashKill|WriteTooLarge|Concurrent|LoseNothing|IncrementalEqualsRebuilt|LockFileDeleted|JournalSize
stress:
	$(GO) test -race -count=1 -run '$(STRESS)' $(CORE_PKGS)
	$(GO) test -run '^$$' -fuzz '^FuzzDefuse$$' -fuzztime 30s ./memory/
	$(GO) test -run '^$$' -fuzz '^FuzzSecret$$' -fuzztime 30s ./memory/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeStrictAgrees$$' -fuzztime 30s ./memory/
	$(GO) test -run '^$$' -fuzz '^FuzzTextWriter$$' -fuzztime 30s ./cmd/engramctl/

# The targets (GOOS/GOARCH) whose builds of the pure-Go packages make test checks from Linux; Macs are arm64 now.
CROSS_TARGETS := windows/amd64 darwin/arm64

## cross-check: go vet, go build and go test -c of the pure-Go packages for Windows and macOS, with CGO_ENABLED=0,
## so that a portability break (a Unix-only call, a file without its build tag) fails make test on Linux
cross-check:
	@set -e; for t in $(CROSS_TARGETS); do \
		echo "cross-check $$t"; \
		export CGO_ENABLED=0 GOOS=$${t%/*} GOARCH=$${t#*/}; \
		$(GO) vet $(CORE_PKGS); \
		$(GO) build $(CORE_PKGS); \
		$(GO) test -c -o /dev/null $(CORE_PKGS) >/dev/null; \
	done

## bench: the Go benchmarks of the engine and the agent (5 runs each; compare medians)
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./memory/... ./agent/...

## bench-compare: the key engine benchmarks (open, add, load 100k, recall at 10k/100k chunks p50/p95, Put, index
## build, peak resident memory) at BASE and in the working tree, interleaved in one session; medians and ratios.
## make bench-compare BASE=<commit> [COUNT=5] [BENCH=Search]
COUNT ?= 5
bench-compare:
	@[ -n "$(BASE)" ] || { echo "bench-compare: give BASE=<commit>" >&2; exit 2; }
	CGO_ENABLED=0 $(GO) run ./cmd/internal/benchcompare -base $(BASE) -count $(COUNT) $(if $(BENCH),-bench $(BENCH))

## eval: recall quality on the public benchmarks in ../shared/eval, scored by its score.py: fused with the
## built-in vectors (the default), then by words alone (--dense none), so the gain shows on every set
EVAL ?= ../shared/eval
EVAL_SETS = $(EVAL)/locomo $(EVAL)/madial-zh $(EVAL)/madial-en $(EVAL)/madial-zh2en $(EVAL)/madial-en2zh
eval:
	CGO_ENABLED=0 $(GO) build -o build/engramctl ./cmd/engramctl
	@echo "== dense builtin"
	python3 $(EVAL)/score.py --bin "./build/engramctl bench-recall --dense builtin" $(EVAL_SETS)
	@echo "== dense none"
	python3 $(EVAL)/score.py --bin "./build/engramctl bench-recall --dense none" $(EVAL_SETS)

## package: everything this machine can build — dist/Engram.tar.xz, dist/engram_$(VERSION)_amd64.deb and
## dist/Engram-windows-amd64.zip (the macOS app needs a Mac: make package-macos); FyneApp.toml is left unchanged
package: package-linux package-deb package-windows

## package-linux: dist/Engram.tar.xz (engram, engramctl, a .desktop entry, the icon, and a Makefile to install them)
package-linux: deps
	mkdir -p build dist
	$(GO) build -tags $(TAGS) -trimpath -ldflags "$(LDFLAGS)" -o build/package/engram ./cmd/engram
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o build/package/engramctl ./cmd/engramctl
	cp FyneApp.toml build/FyneApp.toml.orig
	$(FYNE) package -os linux --release --executable build/package/engram --name Engram --icon assets/icon.png; \
		status=$$?; cp build/FyneApp.toml.orig FyneApp.toml; exit $$status
	rm -rf build/tar && mkdir -p build/tar
	tar -xJf Engram.tar.xz -C build/tar && rm -f Engram.tar.xz
	install -m755 build/package/engramctl build/tar/engram/usr/local/bin/engramctl
	sed -i '/^\t-\?\(install\|rm\) .*bin\/$$(Exec)$$/{p;s/$$(Exec)/engramctl/g}' build/tar/engram/Makefile
	tar -cJf dist/Engram.tar.xz --owner=0 --group=0 -C build/tar engram
	@echo "dist/Engram.tar.xz: $$(tar -tJf dist/Engram.tar.xz | tr '\n' ' ')"

# The icon sizes the .deb installs into the hicolor theme.
ICON_SIZES := 16 24 32 48 64 128 256 512
DEB := dist/engram_$(VERSION)_amd64.deb

## package-deb: dist/engram_VERSION_amd64.deb from the tar.xz's files: /usr/bin/engram and engramctl, the desktop
## entry, hicolor icons, AppStream metainfo. Depends: the binary links libGL and libX11, and GLFW opens libXcursor,
## libXrandr, libXinerama, libXi and libXxf86vm at run time; Recommends: a CJK font. No maintainer scripts: the
## desktop database and icon cache are refreshed by the triggers of desktop-file-utils and the icon themes.
package-deb: package-linux
	rm -rf build/deb && mkdir -p build/deb/DEBIAN
	install -Dm755 build/tar/engram/usr/local/bin/engram build/deb/usr/bin/engram
	install -Dm755 build/tar/engram/usr/local/bin/engramctl build/deb/usr/bin/engramctl
	install -Dm644 build/tar/engram/usr/local/share/applications/dev.engram.app.desktop \
		build/deb/usr/share/applications/dev.engram.app.desktop
	for n in $(ICON_SIZES); do \
		mkdir -p build/deb/usr/share/icons/hicolor/$${n}x$${n}/apps && \
		convert assets/icon.png -resize $${n}x$${n} -strip build/deb/usr/share/icons/hicolor/$${n}x$${n}/apps/dev.engram.app.png \
		|| exit 1; \
	done
	$(MAKE) -s build/dev.engram.app.metainfo.xml
	install -Dm644 build/dev.engram.app.metainfo.xml build/deb/usr/share/metainfo/dev.engram.app.metainfo.xml
	glibc=$$(objdump -T build/deb/usr/bin/engram | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1); \
	size=$$(du -sk --exclude=DEBIAN build/deb | cut -f1); \
	sed -e 's/@VERSION@/$(VERSION)/' -e "s/@INSTALLED_SIZE@/$$size/" -e "s/@GLIBC@/$$glibc/" \
		packaging/deb/control.in > build/deb/DEBIAN/control
	dpkg-deb --root-owner-group -Zxz --build build/deb $(DEB)
	@dpkg-deb --info $(DEB) | sed -n '/Package:/,/Recommends:/p'

# The AppStream metainfo with the version from FyneApp.toml and the date of the commit that set that version
# (today outside a git checkout).
build/dev.engram.app.metainfo.xml: packaging/dev.engram.app.metainfo.xml.in FyneApp.toml
	mkdir -p build
	date=$$(git log -1 --format=%cs -S'Version = "$(VERSION)"' -- FyneApp.toml 2>/dev/null); \
	sed -e 's/@VERSION@/$(VERSION)/' -e "s/@DATE@/$${date:-$$(date -u +%F)}/" $< > $@

## install: per-user install of the packaged app (~/.local), so it shows in the app menu
install: package-linux
	rm -rf build/install && mkdir -p build/install
	tar -xJf dist/Engram.tar.xz -C build/install
	$(MAKE) -C build/install/engram user-install
	install -Dm644 assets/icon.png $(HOME)/.local/share/icons/hicolor/512x512/apps/dev.engram.app.png
	$(MAKE) -s build/dev.engram.app.metainfo.xml
	install -Dm644 build/dev.engram.app.metainfo.xml $(HOME)/.local/share/metainfo/dev.engram.app.metainfo.xml
	@if command -v update-desktop-database >/dev/null; then update-desktop-database $(HOME)/.local/share/applications; fi
	@echo "installed: $(HOME)/.local/bin/engram and the Engram menu entry"

## uninstall: remove the per-user install (memories and chats are kept)
uninstall:
	rm -f $(HOME)/.local/share/applications/dev.engram.app.desktop $(HOME)/.local/bin/engram $(HOME)/.local/bin/engramctl \
		$(HOME)/.local/share/icons/dev.engram.app.png \
		$(HOME)/.local/share/icons/hicolor/512x512/apps/dev.engram.app.png \
		$(HOME)/.local/share/metainfo/dev.engram.app.metainfo.xml
	@if command -v update-desktop-database >/dev/null; then update-desktop-database $(HOME)/.local/share/applications; fi

## package-windows: dist/Engram-windows-amd64.zip with Engram.exe (cross-built with mingw-w64; icon, manifest and
## version resources from fyne package) and engramctl.exe. fyne package builds from the main package's folder and
## reads FyneApp.toml there, so a copy sits in cmd/engram for the build; it and the build's leftovers are removed.
## fyne takes extra -ldflags (the version) from GOFLAGS, but drops them from GOFLAGS after its first build, and for
## Windows it builds twice (before and after adding the resources) unless the executable exists: the empty
## Engram.exe makes the one build it does the one with the version and the resources (fyne tools v1.7.4).
package-windows: deps
	rm -rf build/windows && mkdir -p build/windows dist
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o build/windows/engramctl.exe ./cmd/engramctl
	cp FyneApp.toml cmd/engram/FyneApp.toml
	cd cmd/engram && : > Engram.exe && GOOS=windows GOARCH=amd64 CC=$(WIN_CC) GOFLAGS="$$($(GO) env GOFLAGS) -ldflags=$(VERSION_FLAG)" \
		$(FYNE) package -os windows --release --name Engram --executable Engram.exe --icon $(CURDIR)/assets/icon.png \
		&& mv -f Engram.exe $(CURDIR)/build/windows/Engram.exe; \
		status=$$?; rm -f FyneApp.toml fyne.syso Engram.exe; exit $$status
	rm -f dist/Engram-windows-amd64.zip
	cd build/windows && zip -q -9 $(CURDIR)/dist/Engram-windows-amd64.zip Engram.exe engramctl.exe
	@echo "dist/Engram-windows-amd64.zip: $$(unzip -Z1 dist/Engram-windows-amd64.zip | tr '\n' ' ')"

## package-macos: on a Mac (Xcode command line tools and Go installed): dist/Engram-macos-ARCH.zip holding Engram.app
## (fyne package -os darwin: Info.plist with the ID, name and version of FyneApp.toml, icon.icns) and engramctl.
## The app links against Apple's SDK, which is why it cannot be built on Linux; FyneApp.toml is left unchanged.
MAC_ARCH := $(shell uname -m)
package-macos: $(FYNE)
	@[ "$$(uname -s)" = Darwin ] || { echo "package-macos: run this on macOS: the app links against Apple's SDK" >&2; exit 1; }
	rm -rf build/macos && mkdir -p build/macos dist
	$(GO) build -tags $(TAGS) -trimpath -ldflags "$(LDFLAGS)" -o build/macos/engram ./cmd/engram
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o build/macos/engramctl ./cmd/engramctl
	cp FyneApp.toml build/FyneApp.toml.orig
	$(FYNE) package -os darwin --release --executable build/macos/engram --name Engram --icon assets/icon.png \
		--category productivity; status=$$?; cp build/FyneApp.toml.orig FyneApp.toml; exit $$status
	mv Engram.app build/macos/Engram.app
	rm -f dist/Engram-macos-$(MAC_ARCH).zip
	cd build/macos && ditto -c -k --keepParent Engram.app ../../dist/Engram-macos-$(MAC_ARCH).zip && \
		zip -q ../../dist/Engram-macos-$(MAC_ARCH).zip engramctl
	@echo "dist/Engram-macos-$(MAC_ARCH).zip: Engram.app and engramctl"

## package-check: checks what make package built, run after it (as root: it installs and removes the .deb). The .deb installs
## with dpkg -i, puts the binaries, desktop entry, icons and metainfo in place (both validated), its binaries print
## the version, and dpkg -r leaves none of its files; the tar.xz and the zip hold both programs; Engram.exe is a
## PE32+ GUI executable whose resources hold the icon, the version and the manifest.
package-check:
	@set -e; \
	fail() { echo "package-check: $$*" >&2; exit 1; }; \
	[ "$$(dpkg-deb -f $(DEB) Version)" = "$(VERSION)" ] || fail "$(DEB) has version $$(dpkg-deb -f $(DEB) Version), want $(VERSION)"; \
	if dpkg-query -W engram >/dev/null 2>&1 && [ "$$(dpkg-query -W -f='$${db:Status-Status}' engram)" != not-installed ]; then \
		fail "a package named engram is installed already; dpkg -r engram first"; fi; \
	$(SUDO) dpkg -i $(DEB); \
	files=$$(dpkg -L engram); echo "$$files" | sed 's/^/  dpkg -L: /'; \
	for f in /usr/bin/engram /usr/bin/engramctl /usr/share/applications/dev.engram.app.desktop \
		/usr/share/metainfo/dev.engram.app.metainfo.xml \
		$(foreach n,$(ICON_SIZES),/usr/share/icons/hicolor/$(n)x$(n)/apps/dev.engram.app.png); do \
		echo "$$files" | grep -qx "$$f" || fail "dpkg -L engram lacks $$f"; [ -f "$$f" ] || fail "$$f is not installed"; \
	done; \
	desktop-file-validate /usr/share/applications/dev.engram.app.desktop; \
	appstreamcli validate --no-net /usr/share/metainfo/dev.engram.app.metainfo.xml >/dev/null; \
	grep -q 'release version="$(VERSION)"' /usr/share/metainfo/dev.engram.app.metainfo.xml || fail "metainfo lacks release $(VERSION)"; \
	[ "$$(identify -format '%wx%h' /usr/share/icons/hicolor/48x48/apps/dev.engram.app.png)" = 48x48 ] || fail "48x48 icon has the wrong size"; \
	[ "$$(/usr/bin/engram --version)" = "engram $(VERSION)" ] || fail "engram --version says $$(/usr/bin/engram --version)"; \
	[ "$$(/usr/bin/engramctl version)" = "engramctl $(VERSION)" ] || fail "engramctl version says $$(/usr/bin/engramctl version)"; \
	$(SUDO) dpkg -r engram; \
	for f in $$files; do [ -d "$$f" ] || [ ! -e "$$f" ] || fail "$$f is left after dpkg -r"; done; \
	[ "$$(dpkg-query -W -f='$${db:Status-Status}' engram 2>/dev/null || echo not-installed)" = not-installed ] || fail "dpkg -r left engram registered"; \
	echo "deb: installs, validates and removes cleanly"; \
	tar -tJf dist/Engram.tar.xz | grep -qx engram/usr/local/bin/engramctl || fail "Engram.tar.xz lacks engramctl"; \
	[ "$$(unzip -Z1 dist/Engram-windows-amd64.zip | sort | tr '\n' ' ')" = "Engram.exe engramctl.exe " ] || fail "the zip holds $$(unzip -Z1 dist/Engram-windows-amd64.zip)"; \
	rm -rf build/check && mkdir -p build/check && unzip -q dist/Engram-windows-amd64.zip -d build/check; \
	file build/check/Engram.exe; file build/check/engramctl.exe; \
	file build/check/Engram.exe | grep -q 'PE32+ executable (GUI) x86-64' || fail "Engram.exe is not a PE32+ GUI x86-64 executable"; \
	file build/check/engramctl.exe | grep -q 'PE32+ executable (console) x86-64' || fail "engramctl.exe is not a PE32+ console x86-64 executable"; \
	res=$$(x86_64-w64-mingw32-objdump -p build/check/Engram.exe | sed -n '/^The .rsrc Resource Directory section:/,/^ Resources start/p' \
		| sed -n 's/^[0-9a-f]*   Entry: ID: 0x0000\([0-9a-f][0-9a-f]\),.*/\1/p' \
		| sed 's/^03$$/ICON/; s/^0e$$/GROUP_ICON/; s/^10$$/VERSION/; s/^18$$/MANIFEST/' | tr '\n' ' '); \
	echo "Engram.exe resource types: $$res"; \
	for r in ICON GROUP_ICON VERSION MANIFEST; do echo " $$res" | grep -q " $$r " || fail "Engram.exe has no $$r resource"; done; \
	x86_64-w64-mingw32-objcopy -O binary --only-section=.rsrc build/check/Engram.exe build/check/rsrc.bin; \
	ver=$$(strings -el build/check/rsrc.bin | grep -A1 -x ProductVersion | tail -n1); \
	echo "Engram.exe ProductVersion: $$ver"; \
	case "$$ver" in "$(VERSION)".*) ;; *) fail "Engram.exe's version resource says $$ver, want $(VERSION).BUILD";; esac
	@echo "package-check: all artefacts pass"

clean:
	rm -rf build dist

## e2e: the real build/engram under Xvfb against a fake endpoint: types with xdotool, checks memory.json,
## saves screenshots in build/e2e/ and logs the cold start (median of 5, exec to a drawn window)
.PHONY: e2e
e2e: deps build
	$(GO) test -tags '$(TAGS) e2e' -count=1 -v -run 'TestE2E|TestColdStart' ./cmd/engram/
