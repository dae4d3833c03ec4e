//go:build !unix

package dirlist

import "os"

// openDir opens the directory p for reading its entries.
func openDir(p string) (*os.File, error) { return os.Open(p) }
