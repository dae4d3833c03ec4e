//go:build linux && amd64

#include "textflag.h"

// func int80(trap uintptr) uintptr
TEXT ·int80(SB),NOSPLIT,$0-16
	MOVQ	trap+0(FP), AX
	BYTE	$0xCD; BYTE $0x80	// INT $0x80
	MOVQ	AX, ret+8(FP)
	RET
