import ArgumentParser
import CardScan
import Foundation

/// Image files given on the command line (`--image`): folders stand for the PNG and JPEG files in them.
enum ImageInputs {
    static let extensions: Set<String> = ["png", "jpg", "jpeg"]

    /// The files to scan, in the order given, each folder's images sorted by name (not recursive).
    static func expand(_ paths: [String]) throws -> [String] {
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw ValidationError("--image \(path): no such file or folder")
            }
            guard isFolder.boolValue else {
                files.append(path)
                continue
            }
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path)
            } catch {
                throw ValidationError("--image \(path): the folder cannot be read (\(error.localizedDescription))")
            }
            let images = names.filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
            guard !images.isEmpty else { throw ValidationError("--image \(path): the folder has no .png, .jpg or .jpeg file") }
            files += images.map { (path as NSString).appendingPathComponent($0) }
        }
        return files
    }

    /// What one image file gave.
    enum Outcome {
        /// The contents of every QR code in it, left to right.
        case codes([[UInt8]])
        /// A picture with no QR code the decoder could read.
        case noCode
        /// A file that is no picture, or one refused within the scanner's limits.
        case refused(ImageScanError)

        /// A short machine-readable reason for a file with no code, as the JSON output and the fixtures name it.
        var reason: String {
            switch self {
            case .codes: "codes"
            case .noCode: "no_qr_code"
            case .refused(let error):
                switch error.kind {
                case .unreadable: "unreadable"
                case .notAnImage: "not_an_image"
                case .tooLarge: "too_large"
                case .damaged: "damaged"
                case .outOfMemory: "out_of_memory"
                }
            }
        }

        /// The same for a person.
        var message: String {
            if case .refused(let error) = self { return error.description }
            return "no QR code found"
        }
    }

    /// Scans each file in turn and hands over what it gave.
    static func scan(_ files: [String], each: (_ file: String, _ outcome: Outcome) -> Void) {
        let scanner = QRImageScanner()
        for file in files {
            do {
                let codes = try scanner.scan(fileAt: file)
                each(file, codes.isEmpty ? .noCode : .codes(codes))
            } catch {
                each(file, .refused(error))
            }
        }
    }
}
