# Sourced by the scripts here that make a directory under .build in a temporary one first
# (fetch-openvino.sh, build-zxing.sh, fetch-zbar-header.sh).
#
# put_in_place OUT DEST: OUT becomes DEST. What DEST held (an older version, or one left half-made) is
# moved aside first and removed only once OUT is in its place; nothing but DEST and DEST.old is touched.
put_in_place() {
    rm -rf "$2.old"
    if [ -e "$2" ]; then mv "$2" "$2.old"; fi
    mv "$1" "$2"
    rm -rf "$2.old"
}
