fn main() {
    let args: Vec<String> = std::env::args().collect();
    crossverify::crossaudit::mint::build_file(std::path::Path::new(&args[1]), std::path::Path::new(&args[2])).unwrap();
}
