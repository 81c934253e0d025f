// Package version reports Engram's version. Its one source is FyneApp.toml
// ([Details] Version): the Makefile reads it there and sets it with
//
//	-ldflags -X=engram/cmd/internal/version.version=X.Y.Z
//
// A build without that flag reports the module version from the build info
// when there is one (go install engram@vX.Y.Z), and "dev" otherwise.
package version

import "runtime/debug"

// version is set by the linker; empty in a plain go build.
var version string

// Dev is the version of a build that was given none.
const Dev = "dev"

// String returns the version of this build, without a leading "v".
func String() string {
	info, _ := debug.ReadBuildInfo()
	return resolve(version, info)
}

// resolve picks the linker-set version, then the module version in info,
// then Dev.
func resolve(linked string, info *debug.BuildInfo) string {
	if linked != "" {
		return trimV(linked)
	}
	if info != nil && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return trimV(info.Main.Version)
	}
	return Dev
}

// trimV drops the "v" that Go module versions carry, so every artefact spells
// the version as FyneApp.toml does.
func trimV(v string) string {
	if len(v) > 1 && v[0] == 'v' && v[1] >= '0' && v[1] <= '9' {
		return v[1:]
	}
	return v
}
