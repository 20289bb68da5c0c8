/*
 * preload/clock.c - whether the program forbade the time-stamp counter,
 * which the recorder's clock reads look at (preload/clock.h).
 */
#include "preload/clock.h"

_Atomic int preload_clock_banned;
