# Compile and link flags for TRACEDESK_SANITIZE and TRACEDESK_FUZZ, applied to every target.
if(TRACEDESK_SANITIZE STREQUAL "address")
    set(_flags -fsanitize=address,undefined -fno-sanitize-recover=undefined
        -fno-omit-frame-pointer)
elseif(TRACEDESK_SANITIZE STREQUAL "thread")
    set(_flags -fsanitize=thread -fno-omit-frame-pointer)
elseif(NOT TRACEDESK_SANITIZE STREQUAL "")
    message(FATAL_ERROR "TRACEDESK_SANITIZE must be address, thread or empty")
endif()
if(_flags)
    add_compile_options(${_flags})
    add_link_options(${_flags})
endif()

if(TRACEDESK_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
        message(FATAL_ERROR "TRACEDESK_FUZZ needs clang (CMAKE_CXX_COMPILER=clang++)")
    endif()
    # Coverage feedback for libFuzzer everywhere; only the fuzz targets link its main().
    add_compile_options(-fsanitize=fuzzer-no-link)
endif()
