#include "textflag.h"

// func asciiLF(b []byte) (n int, lf int)
//
// Per 64-byte block: the OR of its four 16-byte loads has no high bit set
// when the block is ASCII (PMOVMSKB); each load compared with sixteen LF
// bytes (PCMPEQB) gives 0xFF per LF, and subtracting it from X5 adds one
// per LF to X5's byte lanes. A lane gains at most 4 per block, so X5 is
// summed into DX (PSADBW against zero) every 63 blocks, before a lane can
// pass 255, and when the scan stops.
TEXT ·asciiLF(SB), NOSPLIT, $0-40
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	XORQ AX, AX                    // n
	XORQ DX, DX                    // lf
	MOVQ $0x0a0a0a0a0a0a0a0a, R8
	MOVQ R8, X7
	PUNPCKLQDQ X7, X7              // X7: sixteen LF bytes
	PXOR X6, X6                    // X6: zero, for PSADBW

round:
	PXOR X5, X5                    // X5: per-lane LF counts of this round
	MOVQ $63, R9                   // blocks left in this round

block:
	CMPQ CX, $64
	JB   done
	MOVOU (SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	MOVO X0, X4
	POR  X1, X4
	POR  X2, X4
	POR  X3, X4
	PMOVMSKB X4, R10
	TESTL R10, R10
	JNZ  done                      // a byte above 0x7F: stop before this block
	PCMPEQB X7, X0
	PCMPEQB X7, X1
	PCMPEQB X7, X2
	PCMPEQB X7, X3
	PSUBB X0, X5
	PSUBB X1, X5
	PSUBB X2, X5
	PSUBB X3, X5
	ADDQ $64, SI
	SUBQ $64, CX
	ADDQ $64, AX
	DECQ R9
	JNZ  block
	PSADBW X6, X5                  // the round is full: add its counts to DX
	MOVQ X5, R10
	PSRLDQ $8, X5
	MOVQ X5, R11
	ADDQ R10, DX
	ADDQ R11, DX
	JMP  round

done:
	PSADBW X6, X5
	MOVQ X5, R10
	PSRLDQ $8, X5
	MOVQ X5, R11
	ADDQ R10, DX
	ADDQ R11, DX
	MOVQ AX, n+24(FP)
	MOVQ DX, lf+32(FP)
	RET
