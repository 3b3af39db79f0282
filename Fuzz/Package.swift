// swift-tools-version: 6.1
// The libFuzzer target for the card-token decoder. A package of its own, because it only links with
// `--sanitize=fuzzer` (libFuzzer supplies `main`), as in swift-protobuf's FuzzTesting:
//
//   make fuzz                         (builds, seeds a corpus from the test vectors, runs 3 million inputs)
//   cd Fuzz && swift build -c release --sanitize=fuzzer --sanitize=address
import PackageDescription

let package = Package(
    name: "peez-fuzz",
    dependencies: [.package(name: "peez-card-service", path: "..")],
    targets: [
        .executableTarget(
            name: "FuzzCardToken",
            dependencies: [
                .product(name: "CardToken", package: "peez-card-service"),
                .product(name: "CardCrypto", package: "peez-card-service"),
            ]
        )
    ]
)
