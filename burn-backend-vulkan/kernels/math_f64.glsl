// f64 transcendental functions: GLSL has exp, log, sin, ... for 32-bit floats only, so the dialect
// implements them for double here. Filled in by the float_math work; empty until then, so an f64 kernel
// that calls one does not compile (Unsupported at the op).
