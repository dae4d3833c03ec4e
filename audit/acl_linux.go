package audit

import (
	"errors"
	"syscall"
)

// hasACL reports whether the file at path has an access control list
// beyond its mode bits. Where that cannot be told, it has one.
func hasACL(path string) bool {
	_, err := syscall.Getxattr(path, "system.posix_acl_access", nil)
	return !errors.Is(err, syscall.ENODATA) && !errors.Is(err, syscall.ENOTSUP)
}
