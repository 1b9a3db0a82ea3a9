#include "textflag.h"

// func scanPlain(b []byte, i int) (end int, high bool)
//
// Registers: SI the bytes, DX len(b), AX the index, X4 the OR of the blocks crossed whole (its
// high bits tell whether one is >= 0x80), X1 X2 X3 '"', '\\' and 0x1F in every byte.
// A byte is a control character when min(byte, 0x1F) == byte. Nothing is read outside
// b[i:len(b)], except the tail of a slice of 16 bytes or more, which is read as its last 16
// bytes (all inside b) with the marks of the bytes before i shifted out.
TEXT ·scanPlain(SB), NOSPLIT, $0-41
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), DX
	MOVQ i+24(FP), AX
	MOVL $0x22222222, CX
	MOVQ CX, X1
	PSHUFD $0, X1, X1
	MOVL $0x5c5c5c5c, CX
	MOVQ CX, X2
	PSHUFD $0, X2, X2
	MOVL $0x1f1f1f1f, CX
	MOVQ CX, X3
	PSHUFD $0, X3, X3
	PXOR X4, X4

loop32:
	LEAQ 32(AX), CX
	CMPQ CX, DX
	JHI  last16
	MOVOU (SI)(AX*1), X5
	MOVOU 16(SI)(AX*1), X6

	// X7: the specials of X5
	MOVO    X5, X7
	PCMPEQB X1, X7
	MOVO    X5, X8
	PCMPEQB X2, X8
	POR     X8, X7
	MOVO    X5, X8
	PMINUB  X3, X8
	PCMPEQB X5, X8
	POR     X8, X7

	// X9: the specials of X6
	MOVO    X6, X9
	PCMPEQB X1, X9
	MOVO    X6, X8
	PCMPEQB X2, X8
	POR     X8, X9
	MOVO    X6, X8
	PMINUB  X3, X8
	PCMPEQB X6, X8
	POR     X8, X9

	MOVO     X7, X8
	POR      X9, X8
	PMOVMSKB X8, CX
	TESTL    CX, CX
	JNZ      found32
	POR      X5, X4
	POR      X6, X4
	ADDQ     $32, AX
	JMP      loop32

found32:
	// CX: the specials of the 32 bytes, BX: their high bits; the first special at AX+k.
	PMOVMSKB X7, CX
	PMOVMSKB X9, BX
	SHLL     $16, BX
	ORL      BX, CX
	PMOVMSKB X5, BX
	PMOVMSKB X6, R8
	SHLL     $16, R8
	ORL      R8, BX
	BSFL     CX, CX
	ADDQ     CX, AX
	MOVL     $1, R8
	SHLL     CX, R8
	DECL     R8
	ANDL     R8, BX // the high bits of the bytes before the special
	JMP      done

last16:
	// Fewer than 32 bytes left: one more block of 16 if there is one.
	LEAQ 16(AX), CX
	CMPQ CX, DX
	JHI  tail
	MOVOU (SI)(AX*1), X5
	MOVO    X5, X7
	PCMPEQB X1, X7
	MOVO    X5, X8
	PCMPEQB X2, X8
	POR     X8, X7
	MOVO    X5, X8
	PMINUB  X3, X8
	PCMPEQB X5, X8
	POR     X8, X7
	PMOVMSKB X7, CX
	TESTL    CX, CX
	JNZ      found16
	POR      X5, X4
	ADDQ     $16, AX

tail:
	// Fewer than 16 bytes left: the last 16 of b, the marks of the bytes before AX shifted
	// out; a byte at a time when b is shorter than 16.
	XORL BX, BX
	MOVQ DX, CX
	SUBQ AX, CX // CX: bytes left (none, or i past the end: i is returned)
	JLE  done
	CMPQ DX, $16
	JLT  bytes
	MOVOU -16(SI)(DX*1), X5
	MOVO    X5, X7
	PCMPEQB X1, X7
	MOVO    X5, X8
	PCMPEQB X2, X8
	POR     X8, X7
	MOVO    X5, X8
	PMINUB  X3, X8
	PCMPEQB X5, X8
	POR     X8, X7
	PMOVMSKB X7, R8 // specials
	PMOVMSKB X5, BX // high bits
	NEGQ     CX
	ADDQ     $16, CX // CX: bytes of the load before AX
	SHRL     CX, R8
	SHRL     CX, BX
	TESTL    R8, R8
	JZ       tailnone
	BSFL     R8, CX
	ADDQ     CX, AX
	MOVL     $1, R8
	SHLL     CX, R8
	DECL     R8
	ANDL     R8, BX
	JMP      done

tailnone:
	MOVQ DX, AX
	JMP  done

found16:
	PMOVMSKB X5, BX
	BSFL     CX, CX
	ADDQ     CX, AX
	MOVL     $1, R8
	SHLL     CX, R8
	DECL     R8
	ANDL     R8, BX
	JMP      done

bytes:
	// BX: the OR of the bytes crossed.
	MOVBLZX (SI)(AX*1), CX
	CMPB    CX, $0x22
	JEQ     bytesdone
	CMPB    CX, $0x5c
	JEQ     bytesdone
	CMPB    CX, $0x20
	JCS     bytesdone // below 0x20
	ORL     CX, BX
	INCQ    AX
	CMPQ    AX, DX
	JLT     bytes

bytesdone:
	ANDL $0x80, BX

done:
	// BX is nonzero when a byte >= 0x80 was crossed after the last block ORed into X4.
	PMOVMSKB X4, CX
	ORL      BX, CX
	MOVQ     AX, end+32(FP)
	TESTL    CX, CX
	SETNE    high+40(FP)
	RET
