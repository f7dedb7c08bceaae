/*
 * Instantiates a template header (LWT_TEMPLATE, a quoted path) once per storage type of the
 * CPU code: REAL double / WREAL double / FN(name) name##_f64, then REAL float / WREAL double /
 * FN(name) name##_f32 (float32 lifts in double, as the GPU's exact float32 path does). Include
 * it where the template's functions are wanted; it undefines LWT_TEMPLATE after.
 */
#ifndef LWT_TEMPLATE
#error "define LWT_TEMPLATE before including core/for_dtypes.h"
#endif

#define REAL double
#define WREAL double
#define FN(name) name##_f64
#include LWT_TEMPLATE
#undef REAL
#undef WREAL
#undef FN

#define REAL float
#define WREAL double
#define FN(name) name##_f32
#include LWT_TEMPLATE
#undef REAL
#undef WREAL
#undef FN

#undef LWT_TEMPLATE
