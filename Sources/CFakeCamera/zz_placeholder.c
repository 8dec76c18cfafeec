/* Temporary: keeps the target non-empty until fakecam sources land. */
typedef int scannerd_fakecam_placeholder;
