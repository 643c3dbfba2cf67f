#include "textflag.h"

// func escapeRun(free []byte, s string) (written, read int)
//
// Per 16-byte block of s: the block is stored to free whole, then the
// write position advances past its bytes up to the first special one. A
// lane is special when its byte is below 0x20 or above 0x7F (one signed
// compare: 0x20 > b as int8), is a backslash, is '<' or '>' (b|0x02 ==
// '>'), or is '"' or '&' (b|0x04 == '&'); PMOVMSKB gathers the lanes and
// BSF finds the first. LF, TAB, CR, '"' and '\' are written as their
// two-byte escapes here; any other special byte ends the run. The whole
// store needs the 16 bytes of room past the write position that the
// caller guarantees (2*len(s)+16 in all).
TEXT ·escapeRun(SB), NOSPLIT, $0-56
	MOVQ free_base+0(FP), DI
	MOVQ s_base+24(FP), SI
	MOVQ s_len+32(FP), CX
	MOVQ DI, R12                   // the start of free
	MOVQ SI, R13                   // the start of s
	MOVQ $0x2020202020202020, R8
	MOVQ R8, X8
	PUNPCKLQDQ X8, X8              // X8: 0x20
	MOVQ $0x0202020202020202, R8
	MOVQ R8, X9
	PUNPCKLQDQ X9, X9              // X9: 0x02
	MOVQ $0x3e3e3e3e3e3e3e3e, R8
	MOVQ R8, X10
	PUNPCKLQDQ X10, X10            // X10: '>'
	MOVQ $0x0404040404040404, R8
	MOVQ R8, X11
	PUNPCKLQDQ X11, X11            // X11: 0x04
	MOVQ $0x2626262626262626, R8
	MOVQ R8, X12
	PUNPCKLQDQ X12, X12            // X12: '&'
	MOVQ $0x5c5c5c5c5c5c5c5c, R8
	MOVQ R8, X13
	PUNPCKLQDQ X13, X13            // X13: '\\'

block:
	CMPQ CX, $16
	JB   done
	MOVOU (SI), X0
	MOVOU X0, (DI)
	MOVO X8, X1
	PCMPGTB X0, X1                 // 0x20 > b: controls and bytes above 0x7F
	MOVO X0, X2
	POR  X9, X2
	PCMPEQB X10, X2                // '<' or '>'
	MOVO X0, X3
	POR  X11, X3
	PCMPEQB X12, X3                // '"' or '&'
	PCMPEQB X13, X0                // '\\'
	POR  X2, X1
	POR  X3, X1
	POR  X0, X1
	PMOVMSKB X1, DX
	TESTL DX, DX
	JNZ  special
	ADDQ $16, SI
	ADDQ $16, DI
	SUBQ $16, CX
	JMP  block

special:
	BSFL DX, DX
	ADDQ DX, SI
	ADDQ DX, DI
	SUBQ DX, CX
	MOVBLZX (SI), BX
	MOVB $0x5c, (DI)               // every escape here starts with '\'
	CMPB BX, $0x0a
	JEQ  lf
	CMPB BX, $0x09
	JEQ  tab
	CMPB BX, $0x0d
	JEQ  cr
	CMPB BX, $0x22
	JEQ  same
	CMPB BX, $0x5c
	JEQ  same
	JMP  done                      // left to the caller

lf:
	MOVB $0x6e, 1(DI)              // n
	JMP  escaped
tab:
	MOVB $0x74, 1(DI)              // t
	JMP  escaped
cr:
	MOVB $0x72, 1(DI)              // r
	JMP  escaped
same:
	MOVB BX, 1(DI)                 // \" or \\

escaped:
	ADDQ $2, DI
	INCQ SI
	DECQ CX
	JMP  block

done:
	SUBQ R12, DI
	SUBQ R13, SI
	MOVQ DI, written+40(FP)
	MOVQ SI, read+48(FP)
	RET
