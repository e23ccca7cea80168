# lit configuration of the ck-lower and ck-link-kernel-side pass tests.
#
#   python3 /usr/lib/llvm-14/build/utils/lit/lit.py -sv \
#     --param ck_plugin=BUILD/src/compiler/libCKPass.so tests/lit

import os
import tempfile

import lit.formats

config.name = 'ck-lower'
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = ['.ll']
config.test_source_root = os.path.dirname(__file__)
# Keep the %t files out of the source tree.
config.test_exec_root = lit_config.params.get(
    'exec_root', os.path.join(tempfile.gettempdir(), 'ck-lower-lit'))

plugin = lit_config.params.get('ck_plugin')
if not plugin:
    lit_config.fatal('pass --param ck_plugin=PATH/libCKPass.so')

llvm_bin = lit_config.params.get('llvm_bin', '/usr/lib/llvm-14/bin')
config.environment['PATH'] = os.pathsep.join(
    [llvm_bin, config.environment.get('PATH', ''), '/usr/bin'])

config.substitutions.append(('%ck_plugin', plugin))
config.substitutions.append(
    ('%ck-lower', '%s -load-pass-plugin %s -passes=ck-lower'
     % (os.path.join(llvm_bin, 'opt'), plugin)))
# What Clover and rusticl run: lowering, then the kernel side linked in.
config.substitutions.append(
    ('%ck-compile', '%s -load-pass-plugin %s -passes=ck-lower,ck-link-kernel-side'
     % (os.path.join(llvm_bin, 'opt'), plugin)))
config.substitutions.append(('%llvm-spirv', '/usr/bin/llvm-spirv-14'))
