//go:build linux && amd64

package attack_test

const isAMD64 = true
