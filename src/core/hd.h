/* Qualifiers for code shared by the C compiler and nvcc (written once). */
#ifndef LWT_CORE_HD_H
#define LWT_CORE_HD_H
#if defined(__CUDACC__)
#define LWT_HD __host__ __device__ static inline
#else
#define LWT_HD static inline
#endif
#endif
