// Package moddir finds where the go command keeps a module this module
// requires, so that a harness can load the CRD manifests an operator ships
// in its module (config/crd/...) without copying them into this
// repository: a module's files other than Go sources cannot be embedded
// across modules, but the module cache holds them, read-only, at the
// version go.mod pins.
//
//	dir, err := moddir.Dir("github.com/ray-project/kuberay/ray-operator")
//	crds, err := crd.Load(filepath.Join(dir, "config", "crd", "bases"))
package moddir

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

var (
	mu    sync.Mutex
	dirs  = map[string]string{}
	where = root()
)

// root is the directory of this module's go.mod, from this file's path.
func root() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	return filepath.Dir(filepath.Dir(file))
}

// Dir returns the directory of module path at the version this module's
// go.mod selects, as `go list -m` answers it. It needs the go command,
// which a test has, and the module in the module cache, where building
// this module's packages puts it.
func Dir(path string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if d, ok := dirs[path]; ok {
		return d, nil
	}
	if where == "" {
		return "", errors.New("moddir: cannot tell where the operators module is")
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", path)
	cmd.Dir = where
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("moddir: go list -m %s: %v: %s", path, err, strings.TrimSpace(stderr.String()))
	}
	d := strings.TrimSpace(string(out))
	if d == "" {
		return "", fmt.Errorf("moddir: go list -m %s names no directory: is it required by go.mod, and downloaded (go mod download)?", path)
	}
	dirs[path] = d
	return d, nil
}
