#pragma once

// RankPickerDialog: which ranks of a distributed run the timeline shows. A checkable list of the
// run's ranks (each with the waiting it caused, so stragglers are easy to pick) and a line edit
// that says the same choice as text ("0-3,17"); editing either updates the other. All / None /
// Shown reset the choice. OK is enabled only for a valid, non-empty choice; a rank the run lacks
// is named under the edit. The dialog only chooses: the caller reopens the run. GUI thread only.

#include <QDialog>
#include <QString>

#include <cstdint>
#include <vector>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QListWidgetItem;

namespace tracedesk::views {

struct RankChoice
{
    int64_t rank = 0;
    QString detail; // shown after "rank N"
    bool shown = false; // on the timeline now (checked at first)
};

class RankPickerDialog : public QDialog
{
    Q_OBJECT

public:
    RankPickerDialog(std::vector<RankChoice> ranks, QWidget *parent = nullptr);

    // The checked ranks, ascending.
    std::vector<int64_t> chosenRanks() const;
    // Sets the choice as typed ("0-3,17"), as if the user typed it.
    void setChoiceText(const QString &text);
    QString choiceText() const;
    // Why the typed choice is refused, empty when it is fine.
    QString problemText() const;

    QListWidget *rankList() const { return m_list; }
    QLineEdit *choiceEdit() const { return m_edit; }
    QDialogButtonBox *buttons() const { return m_buttons; }

private:
    void checkOnly(const std::vector<int64_t> &ranks);
    void listChanged();
    void textEdited(const QString &text);
    void setProblem(const QString &problem);

    std::vector<RankChoice> m_ranks;
    QListWidget *m_list = nullptr;
    QLineEdit *m_edit = nullptr;
    QLabel *m_problem = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
    bool m_syncing = false;
};

} // namespace tracedesk::views
