/*
 * preload/sample_math.c - ln(x) and e^y - 1 for the sampler (see
 * preload/sample_math.h).
 *
 * Both reduce their argument by powers of two (a double's exponent field,
 * read and written through its bits) and sum a short series on what is
 * left; ln 2 is split into a part whose multiples by an exponent are exact
 * and the rest.  Pure arithmetic: no call, no allocation, no state.
 */
#include <stdint.h>
#include <string.h>

#include "preload/sample_math.h"

#define SAMPLE_MATH_LN2_HI 0x1.62e42fee00000p-1 /* ln 2, its high 32 bits */
#define SAMPLE_MATH_LN2_LO 0x1.a39ef35793c76p-33 /* ln 2 - SAMPLE_MATH_LN2_HI */
#define SAMPLE_MATH_SQRT2 0x1.6a09e667f3bcdp+0

static uint64_t sample_math_bits(double x)
{
	uint64_t b;

	memcpy(&b, &x, sizeof(b));
	return b;
}

static double sample_math_double(uint64_t b)
{
	double x;

	memcpy(&x, &b, sizeof(x));
	return x;
}

/*
 * x = 2^e * m with m in [sqrt(1/2), sqrt(2)); with f = m - 1 (exact) and
 * s = f / (2 + f), ln m = 2 atanh s = f - f^2/2 + s (f^2/2 + R), where
 * R = 2 (s^2/3 + s^4/5 + ...); |s| < 0.172, so ten terms leave under 1e-17.
 */
double sample_math_log(double x)
{
	uint64_t b = sample_math_bits(x);
	int e = (int)((b >> 52) & 0x7ff) - 1023;
	double m = sample_math_double((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
	double f, s, z, r = 0.0, hfsq;

	if (m > SAMPLE_MATH_SQRT2) {
		m *= 0.5;
		e++;
	}
	f = m - 1.0;
	s = f / (2.0 + f);
	z = s * s;
	for (int k = 10; k >= 1; k--)
		r = z * (2.0 / (2 * k + 1) + r);
	hfsq = 0.5 * f * f;
	return (double)e * SAMPLE_MATH_LN2_HI +
	       ((double)e * SAMPLE_MATH_LN2_LO + (f - (hfsq - s * (hfsq + r))));
}

/* e^r for |r| <= ln(2)/2: the Taylor series to r^18/18!, under 1e-17. */
static double sample_math_exp_reduced(double r)
{
	double p = 1.0;

	for (int k = 18; k >= 1; k--)
		p = 1.0 + r / k * p;
	return p;
}

/*
 * Near 0 (y > -1/2) the series y (1 + y/2 (1 + y/3 (...))) to y^18/18!;
 * further down e^y = 2^n e^r with r = y - n ln 2, minus 1, which no longer
 * cancels much (e^y <= 0.61); below -40, e^y is under half a unit of 1.
 */
double sample_math_expm1(double y)
{
	double p = 1.0, r;
	int n;

	if (y > -0.5) {
		for (int k = 18; k >= 2; k--)
			p = 1.0 + y / k * p;
		return y * p;
	}
	if (y < -40.0)
		return -1.0;
	n = (int)(y / (SAMPLE_MATH_LN2_HI + SAMPLE_MATH_LN2_LO) - 0.5);
	r = (y - n * SAMPLE_MATH_LN2_HI) - n * SAMPLE_MATH_LN2_LO;
	return sample_math_exp_reduced(r) * sample_math_double((uint64_t)(1023 + n) << 52) - 1.0;
}
