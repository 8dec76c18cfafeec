// Camera controls, with the ranges of a typical UVC webcam. Values belong to the device (as
// with a real camera they survive close/open) and go back to defaults when it is replugged.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <string.h>

#include "fakecam_internal.h"

static const char *const power_line_menu[] = {"Disabled", "50 Hz", "60 Hz"};
static const char *const exposure_auto_menu[] = {"Auto Mode", "Manual Mode", "Shutter Priority Mode",
                                                 "Aperture Priority Mode"};

struct control {
    uint32_t id;
    uint32_t type; // enum v4l2_ctrl_type
    const char *name;
    int32_t minimum, maximum, step, default_value;
    const char *const *menu; // menu controls: names of minimum...maximum
};

static const struct control controls[] = {
    {V4L2_CID_BRIGHTNESS, V4L2_CTRL_TYPE_INTEGER, "Brightness", 0, 255, 1, 128, NULL},
    {V4L2_CID_POWER_LINE_FREQUENCY, V4L2_CTRL_TYPE_MENU, "Power Line Frequency", 0, 2, 1, 1, power_line_menu},
    {V4L2_CID_EXPOSURE_AUTO, V4L2_CTRL_TYPE_MENU, "Auto Exposure", 0, 3, 1, 3, exposure_auto_menu},
    {V4L2_CID_EXPOSURE_ABSOLUTE, V4L2_CTRL_TYPE_INTEGER, "Exposure Time, Absolute", 3, 2047, 1, 250, NULL},
    {V4L2_CID_FOCUS_ABSOLUTE, V4L2_CTRL_TYPE_INTEGER, "Focus, Absolute", 0, 250, 5, 0, NULL},
    {V4L2_CID_FOCUS_AUTO, V4L2_CTRL_TYPE_BOOLEAN, "Focus, Automatic Continuous", 0, 1, 1, 1, NULL},
    {V4L2_CID_ZOOM_ABSOLUTE, V4L2_CTRL_TYPE_INTEGER, "Zoom, Absolute", 100, 500, 1, 100, NULL},
};

#define CONTROL_COUNT (sizeof controls / sizeof controls[0])

static pthread_mutex_t values_lock = PTHREAD_MUTEX_INITIALIZER; // leaf lock
static int32_t values[CONTROL_COUNT];
static bool values_changed; // false: every control is at its default

// MARK: - Values

/// values_lock held.
static int32_t current_value(size_t index) {
    return values_changed ? values[index] : controls[index].default_value;
}

/// values_lock held.
static void set_value(size_t index, int32_t value) {
    if (!values_changed) {
        for (size_t i = 0; i < CONTROL_COUNT; i++) values[i] = controls[i].default_value;
        values_changed = true;
    }
    values[index] = value;
}

void fc_controls_reset(void) {
    pthread_mutex_lock(&values_lock);
    values_changed = false;
    pthread_mutex_unlock(&values_lock);
}

/// ERANGE outside minimum...maximum; otherwise 0 and the value rounded to the nearest step.
static int validate(const struct control *control, int32_t value, int32_t *accepted) {
    if (value < control->minimum || value > control->maximum) return ERANGE;
    int32_t steps = (value - control->minimum + control->step / 2) / control->step;
    int32_t rounded = control->minimum + steps * control->step;
    *accepted = rounded > control->maximum ? rounded - control->step : rounded;
    return 0;
}

// MARK: - Lookup

static const struct control *find(uint32_t id, size_t *index) {
    for (size_t i = 0; i < CONTROL_COUNT; i++) {
        if (controls[i].id == id) {
            if (index != NULL) *index = i;
            return &controls[i];
        }
    }
    return NULL;
}

/// The control with the smallest id above `id` (V4L2_CTRL_FLAG_NEXT_CTRL enumeration).
static const struct control *next_after(uint32_t id) {
    const struct control *next = NULL;
    for (size_t i = 0; i < CONTROL_COUNT; i++)
        if (controls[i].id > id && (next == NULL || controls[i].id < next->id)) next = &controls[i];
    return next;
}

/// QUERYCTRL/QUERY_EXT_CTRL id: exact, or "next after" with V4L2_CTRL_FLAG_NEXT_CTRL. There
/// are no compound controls, so NEXT_COMPOUND alone finds nothing.
static const struct control *query_lookup(uint32_t id) {
    const uint32_t next_flags = V4L2_CTRL_FLAG_NEXT_CTRL | V4L2_CTRL_FLAG_NEXT_COMPOUND;
    if (id & V4L2_CTRL_FLAG_NEXT_CTRL) return next_after(id & ~next_flags);
    if (id & V4L2_CTRL_FLAG_NEXT_COMPOUND) return NULL;
    return find(id, NULL);
}

// MARK: - Queries

static int queryctrl(struct v4l2_queryctrl *query) {
    const struct control *control = query_lookup(query->id);
    if (control == NULL) return EINVAL;
    memset(query, 0, sizeof *query);
    query->id = control->id;
    query->type = control->type;
    snprintf((char *)query->name, sizeof query->name, "%s", control->name);
    query->minimum = control->minimum;
    query->maximum = control->maximum;
    query->step = control->step;
    query->default_value = control->default_value;
    return 0;
}

static int query_ext_ctrl(struct v4l2_query_ext_ctrl *query) {
    const struct control *control = query_lookup(query->id);
    if (control == NULL) return EINVAL;
    memset(query, 0, sizeof *query);
    query->id = control->id;
    query->type = control->type;
    snprintf(query->name, sizeof query->name, "%s", control->name);
    query->minimum = control->minimum;
    query->maximum = control->maximum;
    query->step = (uint32_t)control->step;
    query->default_value = control->default_value;
    query->elem_size = sizeof(int32_t);
    query->elems = 1;
    return 0;
}

static int querymenu(struct v4l2_querymenu *query) {
    const struct control *control = find(query->id, NULL);
    if (control == NULL || control->menu == NULL || query->index < (uint32_t)control->minimum ||
        query->index > (uint32_t)control->maximum)
        return EINVAL;
    uint32_t id = query->id, index = query->index;
    memset(query, 0, sizeof *query);
    query->id = id;
    query->index = index;
    snprintf((char *)query->name, sizeof query->name, "%s", control->menu[index - (uint32_t)control->minimum]);
    return 0;
}

// MARK: - Get and set

static int g_ctrl(struct v4l2_control *request) {
    size_t index;
    if (find(request->id, &index) == NULL) return EINVAL;
    pthread_mutex_lock(&values_lock);
    request->value = current_value(index);
    pthread_mutex_unlock(&values_lock);
    return 0;
}

static int s_ctrl(struct v4l2_control *request) {
    size_t index;
    const struct control *control = find(request->id, &index);
    if (control == NULL) return EINVAL;
    int32_t accepted;
    int error = validate(control, request->value, &accepted);
    if (error != 0) return error;
    pthread_mutex_lock(&values_lock);
    set_value(index, accepted);
    pthread_mutex_unlock(&values_lock);
    request->value = accepted;
    return 0;
}

static int g_ext_ctrls(struct v4l2_ext_controls *request) {
    bool defaults = request->which == V4L2_CTRL_WHICH_DEF_VAL;
    pthread_mutex_lock(&values_lock);
    int error = 0;
    for (uint32_t i = 0; i < request->count && error == 0; i++) {
        size_t index;
        const struct control *control = find(request->controls[i].id, &index);
        if (control == NULL) {
            request->error_idx = i;
            error = EINVAL;
        } else {
            request->controls[i].value = defaults ? control->default_value : current_value(index);
        }
    }
    pthread_mutex_unlock(&values_lock);
    return error;
}

static int check_ext_control(const struct v4l2_ext_control *item, size_t *index, int32_t *accepted) {
    const struct control *control = find(item->id, index);
    return control == NULL ? EINVAL : validate(control, item->value, accepted);
}

/// All or nothing: every control is validated before any is changed. On a validation error
/// error_idx names the control for TRY and is `count` for S, as the V4L2 spec asks. TRY writes
/// back the values that S would store (rounded to the step).
static int set_ext_ctrls(struct v4l2_ext_controls *request, bool apply) {
    size_t index;
    int32_t accepted;
    for (uint32_t i = 0; i < request->count; i++) {
        int error = check_ext_control(&request->controls[i], &index, &accepted);
        if (error != 0) {
            request->error_idx = apply ? request->count : i;
            return error;
        }
    }
    pthread_mutex_lock(&values_lock);
    for (uint32_t i = 0; i < request->count; i++) {
        check_ext_control(&request->controls[i], &index, &accepted); // validated above
        if (apply) set_value(index, accepted);
        request->controls[i].value = accepted;
    }
    pthread_mutex_unlock(&values_lock);
    return 0;
}

static int ext_ctrls(unsigned int request, struct v4l2_ext_controls *controls_request) {
    if (controls_request->count == 0) return 0;
    if (controls_request->controls == NULL) return EFAULT;
    if (controls_request->which == V4L2_CTRL_WHICH_REQUEST_VAL) return EINVAL; // no request API
    if (request == VIDIOC_G_EXT_CTRLS) return g_ext_ctrls(controls_request);
    if (controls_request->which == V4L2_CTRL_WHICH_DEF_VAL) return EINVAL; // defaults are read-only
    return set_ext_ctrls(controls_request, request == VIDIOC_S_EXT_CTRLS);
}

// MARK: - Dispatch

bool fc_controls_handles(unsigned int request) {
    switch (request) {
    case VIDIOC_QUERYCTRL:
    case VIDIOC_QUERY_EXT_CTRL:
    case VIDIOC_QUERYMENU:
    case VIDIOC_G_CTRL:
    case VIDIOC_S_CTRL:
    case VIDIOC_G_EXT_CTRLS:
    case VIDIOC_S_EXT_CTRLS:
    case VIDIOC_TRY_EXT_CTRLS: return true;
    default: return false;
    }
}

int fc_controls_ioctl(unsigned int request, void *arg) {
    switch (request) {
    case VIDIOC_QUERYCTRL: return queryctrl(arg);
    case VIDIOC_QUERY_EXT_CTRL: return query_ext_ctrl(arg);
    case VIDIOC_QUERYMENU: return querymenu(arg);
    case VIDIOC_G_CTRL: return g_ctrl(arg);
    case VIDIOC_S_CTRL: return s_ctrl(arg);
    default: return ext_ctrls(request, arg);
    }
}
