#pragma once

// PyTorchMemoryEventModel: the memory events table of a PyTorch trace (core PyTorchMemory
// events) for one device: allocating operator, size, allocation and release times and the time
// between them. A lone free has no allocation time and a block never freed in the profile has
// no release time; those cells stay empty. Display role: formatted text (KB, ms of trace time);
// kSortRole: the raw value (-1 for an empty cell); kTimeRole: the allocation time, else the
// release time, in picoseconds.

#include "core/analysis/pytorch/pytorchmemory.h"

#include <QAbstractTableModel>

#include <memory>

namespace tracedesk::views {

class PyTorchMemoryEventModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Operator, SizeKb, AllocationMs, ReleaseMs, DurationMs, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole;
    static constexpr int kTimeRole = Qt::UserRole + 1;

    explicit PyTorchMemoryEventModel(QObject *parent = nullptr);

    // Shows the events of memory->devices[device] (none for a negative device); times in ms
    // from `origin`, the trace's start (kTimeRole keeps the store time).
    void setDevice(std::shared_ptr<const core::analysis::pytorch::PyTorchMemory> memory,
                   int device, core::TimePs origin = 0);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const core::analysis::pytorch::PyTorchMemory> m_memory;
    std::vector<uint32_t> m_rows;   // indices into m_memory->events
    core::TimePs m_origin = 0;
};

} // namespace tracedesk::views
