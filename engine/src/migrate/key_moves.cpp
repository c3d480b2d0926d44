// SPDX-License-Identifier: MIT
// The table of renamed, replaced and unread keys (key_moves.hpp). Read from DeepSpeed's source at
// the tags named (`git show vX.Y.Z:PATH`); tests/engine/migrate/key_moves_test.cpp holds each
// entry against the schema data's release history, so a wrong `since` fails the build's tests.
#include "migrate/key_moves.hpp"

#include <array>

namespace zf::migrate {

namespace {

constexpr std::array kMoves = {
    // v0.16.4 deepspeed/runtime/swap_tensor/constants.py: AIO_THREAD_COUNT ("thread_count")
    // became AIO_INTRA_OP_PARALLELISM ("intra_op_parallelism"), default 1 both; aio_config.py
    // reads only the new name from then on.
    KeyMove{"/aio/thread_count", "/aio/intra_op_parallelism", "0.16.4", ValueMap::Same,
            "DeepSpeed 0.16.4 renamed aio.thread_count intra_op_parallelism",
            "deepspeed/runtime/swap_tensor/constants.py"},
    // v0.16.5 deepspeed/runtime/constants.py: SEQ_PARALLEL_COMMUNICATION_DATA_TYPE was
    // "seq_parallel_comm_data_type" up to v0.16.4 and "seq_parallel_communication_data_type" since.
    KeyMove{"/seq_parallel_comm_data_type", "/seq_parallel_communication_data_type", "0.16.5",
            ValueMap::Same,
            "DeepSpeed 0.16.5 renamed seq_parallel_comm_data_type "
            "seq_parallel_communication_data_type",
            "deepspeed/runtime/constants.py"},
    // deepspeed/runtime/zero/config.py (every release from v0.12.0): cpu_offload is a deprecated
    // Field with new_param="offload_optimizer" and new_param_fn giving
    // DeepSpeedZeroOffloadOptimizerConfig(device=cpu) for true and None for false.
    KeyMove{"/zero_optimization/cpu_offload", "/zero_optimization/offload_optimizer", "",
            ValueMap::CpuDeviceIfTrue,
            "zero_optimization.cpu_offload is deprecated: DeepSpeed reads it as offload_optimizer "
            "{\"device\": \"cpu\"} (true) or no offload (false)",
            "deepspeed/runtime/zero/config.py"},
    // Same file: cpu_offload_param, new_param="offload_param", DeepSpeedZeroOffloadParamConfig.
    KeyMove{"/zero_optimization/cpu_offload_param", "/zero_optimization/offload_param", "",
            ValueMap::CpuDeviceIfTrue,
            "zero_optimization.cpu_offload_param is deprecated: DeepSpeed reads it as "
            "offload_param {\"device\": \"cpu\"} (true) or no offload (false)",
            "deepspeed/runtime/zero/config.py"},
    // Same file: cpu_offload_use_pin_memory is deprecated with set_new_param=False: DeepSpeed
    // logs a warning and nothing reads the value.
    KeyMove{"/zero_optimization/cpu_offload_use_pin_memory", "", "", ValueMap::NoEffect,
            "zero_optimization.cpu_offload_use_pin_memory is deprecated and read by nothing "
            "(pin_memory inside offload_optimizer or offload_param says it now)",
            "deepspeed/runtime/zero/config.py"},
    // Same file: stage3_gather_fp16_weights_on_model_save is deprecated with
    // new_param="gather_16bit_weights_on_model_save" (whose alias carries the stage3_ prefix).
    KeyMove{"/zero_optimization/stage3_gather_fp16_weights_on_model_save",
            "/zero_optimization/stage3_gather_16bit_weights_on_model_save", "", ValueMap::Same,
            "zero_optimization.stage3_gather_fp16_weights_on_model_save is deprecated: DeepSpeed "
            "reads it as stage3_gather_16bit_weights_on_model_save",
            "deepspeed/runtime/zero/config.py"},
};

}  // namespace

std::span<const KeyMove> key_moves() { return kMoves; }

}  // namespace zf::migrate
