// The `bindgen` command: bindgen's own command-line front end
// (bindgen::builder_from_flags, the library's `__cli` feature).
use std::{env, process::exit};

fn main() {
    match bindgen::builder_from_flags(env::args()) {
        Ok((builder, output, _verbose)) => match builder.generate() {
            Ok(bindings) => {
                if let Err(error) = bindings.write(output) {
                    eprintln!("bindgen: cannot write the bindings: {error}");
                    exit(1);
                }
            }
            Err(error) => {
                eprintln!("bindgen: {error}");
                exit(1);
            }
        },
        Err(error) => {
            eprintln!("bindgen: {error}");
            exit(1);
        }
    }
}
