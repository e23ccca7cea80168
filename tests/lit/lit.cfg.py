# lit configuration of the ck-lower and ck-link-kernel-side pass tests.
# meson (tests/lit/meson.build) runs them with every parameter set:
#
#   python3 LLVM_PREFIX/build/utils/lit/lit.py -sv \
#     --param ck_plugin=BUILD/src/compiler/libCKPass.so \
#     --param llvm_bin=LLVM_PREFIX/bin --param llvm_spirv=PATH \
#     --param context_header=include/ck/context.h tests/lit
#
# FileCheck gets the context words' indices from include/ck/context.h as
# variables (%ck_words: -DCK_BARRIER_ARRIVED=4 ...), so checks name the word
# (i64 [[CK_BARRIER_ARRIVED]]) instead of its number.

import os
import re
import subprocess
import tempfile

import lit.formats

config.name = 'ck-lower'
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = ['.ll']
config.test_source_root = os.path.dirname(__file__)
# Keep the %t files out of the source tree.
config.test_exec_root = lit_config.params.get(
    'exec_root', os.path.join(tempfile.gettempdir(), 'ck-lower-lit'))


def param(name):
    value = lit_config.params.get(name)
    if not value:
        lit_config.fatal(f'pass --param {name}=... (see tests/lit/meson.build)')
    return value


plugin = param('ck_plugin')
llvm_bin = param('llvm_bin')
config.environment['PATH'] = os.pathsep.join(
    [llvm_bin, config.environment.get('PATH', ''), '/usr/bin'])

config.substitutions.append(('%ck_plugin', plugin))
config.substitutions.append(
    ('%ck-lower', '%s -load-pass-plugin %s -passes=ck-lower'
     % (os.path.join(llvm_bin, 'opt'), plugin)))
# What rusticl runs: lowering, then the kernel side linked in.
config.substitutions.append(
    ('%ck-compile', '%s -load-pass-plugin %s -passes=ck-lower,ck-link-kernel-side'
     % (os.path.join(llvm_bin, 'opt'), plugin)))
# The same for a driver that dispatches every work-group at once (zink).
config.substitutions.append(
    ('%ck-dispatch-lower', "%s -load-pass-plugin %s -passes='ck-lower<dispatched>'"
     % (os.path.join(llvm_bin, 'opt'), plugin)))
config.substitutions.append(
    ('%ck-dispatch-compile',
     "%s -load-pass-plugin %s -passes='ck-lower<dispatched>,ck-link-kernel-side'"
     % (os.path.join(llvm_bin, 'opt'), plugin)))
config.substitutions.append(('%llvm-spirv', param('llvm_spirv')))

# Splitting coroutines as llvmpipe does, with the new pass manager (LLVM 15
# has no legacy coroutine passes). LLVM 15 also marks a coroutine before
# its split with the presplitcoroutine attribute, where LLVM 14 reads the
# string attribute "coroutine.presplit"="0" that the tests are written with.
llvm_major = int(subprocess.run([os.path.join(llvm_bin, 'llvm-config'), '--version'],
                                check=True, capture_output=True, text=True).stdout.split('.')[0])
config.substitutions.append(
    ('%coro-split', "opt -passes='module(coro-early,cgscc(coro-split),coro-elide)' "
                    "| opt -passes='module(coro-cleanup)'"))
config.substitutions.append(
    ('%coro-input', 'cat' if llvm_major < 15 else
     "sed 's/\"coroutine.presplit\"=\"0\"/presplitcoroutine/'"))

with open(param('context_header')) as header:
    words = re.findall(r'^\s*(CK_[A-Z0-9_]+)\s*=\s*(\d+)', header.read(), re.MULTILINE)
if not any(name == 'CK_HEADER_WORDS' for name, _ in words):
    lit_config.fatal('no context words (CK_HEADER_WORDS) in ' + param('context_header'))
config.substitutions.append(
    ('%ck_words', ' '.join(f'-D{name}={value}' for name, value in words)))
# The slots' first word, for FileCheck's numeric expressions:
# [[#HEADER+2]] is the first word of work-group 0's transmit record.
config.substitutions.append(
    ('%ck_header', '-D#HEADER=' + dict(words)['CK_HEADER_WORDS']))
