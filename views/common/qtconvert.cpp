#include "views/common/qtconvert.h"
