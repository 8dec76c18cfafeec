import NIOCore

/// Splits the byte stream into lines (LF, with an optional CR before it), refusing any line longer
/// than `maximumLength` bytes: a client cannot make the daemon buffer without bound.
struct RequestLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    struct LineTooLong: Error {
        let limit: Int
    }

    let maximumLength: Int

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > maximumLength { throw LineTooLong(limit: maximumLength) }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        if length > maximumLength { throw LineTooLong(limit: maximumLength) }
        var line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytesView.last == UInt8(ascii: "\r") { line = line.getSlice(at: line.readerIndex, length: line.readableBytes - 1)! }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A last line without a newline still counts.
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 {
            context.fireChannelRead(wrapInboundOut(buffer.readSlice(length: buffer.readableBytes)!))
        }
        return .needMoreData
    }
}
