#ifndef SCANNERD_CMOSQUITTO_SHIM_H
#define SCANNERD_CMOSQUITTO_SHIM_H
#include <mosquitto.h>

/* The protocol version option takes a pointer-free int value: MQTT 3.1.1, which every broker speaks. */
static inline int cmosquitto_use_mqtt311(struct mosquitto *mosq) {
    return mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
}
#endif
