// On a device that does not run cooperative kernels (rusticl on zink), the
// extension's macro and builtins are not declared: a program that calls a
// builtin without the portable header fails to build, naming it, as with
// any extension the device lacks. Its builds used to declare them for every
// device, so this program built as a cooperative kernel that zink could
// not run.

// CHECK: build: failure (CL_BUILD_PROGRAM_FAILURE)
// CHECK: build log:
// CHECK-DAG: input.cl:[[@LINE+9]]:{{[0-9]+}}: error: use of undeclared identifier 'offer_kill'
// CHECK-DAG: input.cl:[[@LINE+9]]:{{[0-9]+}}: error: use of undeclared identifier 'global_barrier'
// CHECK: end of build log
#ifdef cl_ext_cooperative_kernels
#error "cl_ext_cooperative_kernels is defined on a device without the extension"
#endif
kernel void k(global int *a)
{
   a[get_global_id(0)] = 1;
   offer_kill();
   global_barrier();
}
