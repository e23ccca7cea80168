// main() of the host test programs that take no arguments of their own.
#include "host_test.hpp"

int main(int argc, char **argv)
{
   testing::InitGoogleTest(&argc, argv);
   return host_test::run_all();
}
