/*
 * preload/sample_math.h - the two functions of the sampler's math, the
 * natural logarithm and e^x - 1, computed here so the shim needs no libm:
 * loading libm.so.6 into a program that does not use it costs the loader
 * 0.3-0.5 ms (its ifunc resolvers), in every executed process.
 */
#ifndef MPROF_PRELOAD_SAMPLE_MATH_H
#define MPROF_PRELOAD_SAMPLE_MATH_H

/* ln(x) for a positive normal x (the sampler passes (0, 1]); within about
 * one unit in the last place. */
double sample_math_log(double x);

/* e^y - 1 for y <= 0 (the sampler passes -bytes / interval), without the
 * cancellation of exp(y) - 1 near 0; within a few units in the last place. */
double sample_math_expm1(double y);

#endif
