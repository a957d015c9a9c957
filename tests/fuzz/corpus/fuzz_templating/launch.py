import triton
import triton.language as tl

BLOCK_M = 128  # rows per program
GROUP_SIZE_M = 8
DOC = """BLOCK_Q = 64"""

@triton.jit
def matmul_kernel(a_ptr, BLOCK_N: tl.constexpr = 64):
    BLOCK_T = 16

def run(a):
    matmul_kernel[(4,)](a, num_warps=8, num_stages=3)
    matmul_kernel[(4,)](a, num_warps=4)
